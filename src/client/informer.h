// Informer: a local copy of one collection (e.g. every LeaseCandidate of every namespace), kept
// current by KubeClient::WatchCollection (list, then watch; resumed after a disconnect,
// relisted after 410 Expired), as client-go's shared informer for one controller.
//
// The handler runs on the watch thread after the copy changed, must not block, and gets:
// "ADDED" (first sight), "MODIFIED", "DELETED" (with the last known object), and "SYNCED" (with
// {}) after each complete listing. synced() is true from the first complete listing on.
// The copy keeps parsed objects, or with Keep::kText each object's JSON text (a parsed tree
// costs several times the text: 100,000 Leases took ~180 MiB as trees), which Get and List then
// parse: for large collections that are read rarely. Objects come without metadata.managedFields
// (a third of a Lease; the shared watch leaves them out, as client-go's informers strip them):
// who owns which field is the server's business, and an update sent without them keeps the
// stored ones. DELETED gets the kept copy.
// With a filter (`wants`, see KubeClient::WatchCollection) the copy holds only the objects it
// accepts, and an event of another object is not even parsed: for a controller that manages a
// few objects of a large collection. What the filter turned away is not brought back when it
// starts to accept an object: read that object then (and Remember it).
// Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client/kube_client.h"

namespace tenure::client {

class Informer {
 public:
  using Handler = std::function<void(const std::string& type, const nlohmann::json& object)>;
  enum class Keep { kParsed, kText };

  Informer(KubeClient& client, std::string collection_path, Handler handler,
           Keep keep = Keep::kParsed, ObjectFilter wants = nullptr);
  ~Informer();  // Stop()
  // Ends the deliveries: no handler call after it returns; the copy stays readable. It waits for
  // a handler call in progress, so it must not be called holding a lock the handler takes.
  void Stop();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  bool synced() const;
  // Whether the watch stream is connected now.
  bool active() const;
  std::optional<nlohmann::json> Get(const std::string& namespace_, const std::string& name) const;
  // Objects for which `keep` returns true (all when it is empty).
  std::vector<nlohmann::json> List(
      const std::function<bool(const nlohmann::json&)>& keep = nullptr) const;
  size_t size() const;
  // Takes in an object this process just wrote (the reply of a create or update), unless the
  // copy already holds the same or a newer resourceVersion: the next decision then starts from
  // it without waiting for the watch. No handler call.
  void Remember(const nlohmann::json& object);
  // Drops the copy of an object (no handler call): one the filter no longer accepts, whose
  // copy would otherwise grow stale while it keeps its memory.
  void Forget(const std::string& namespace_, const std::string& name);

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name
  struct Stored {
    nlohmann::json object;            // Keep::kParsed
    std::string text;                 // Keep::kText: the object, serialized
    std::optional<uint64_t> version;  // its resourceVersion when it is an integer
  };
  void OnEvent(const std::string& type, const nlohmann::json& object);
  // Stores `object` under `key` unless the copy holds a known newer version; false then.
  bool Store(const Key& key, const nlohmann::json& object);
  nlohmann::json Object(const Stored& stored) const;

  Handler handler_;
  const Keep keep_;
  mutable std::mutex mu_;
  std::map<Key, Stored> objects_;
  bool synced_ = false;
  std::unique_ptr<Subscription> subscription_;  // last: stopped first
};

}  // namespace tenure::client
