// WatchMultiplexer: one watch stream per collection, shared by every subscriber to an object in
// it and by subscribers to the whole collection (name ""). The stream resumes from the last
// resourceVersion after a disconnect, relists after 410 Expired (delivering the current state as
// MODIFIED, or DELETED for a vanished object, then "SYNCED" to collection subscribers), and
// retries with a capped backoff while the server is unreachable. A collection subscriber joining
// a running stream makes it relist, so it too starts from a complete listing.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "client/kube_client.h"

namespace tenure::client {

class CollectionWatch;

class WatchMultiplexer {
 public:
  explicit WatchMultiplexer(KubeClient& client);
  ~WatchMultiplexer();
  // `known`: see KubeClient::WatchObject (null: every event of the object is delivered).
  // `wants`, for a collection subscriber (name ""): see KubeClient::WatchCollection.
  std::unique_ptr<Subscription> Subscribe(
      const std::string& collection_path, const std::string& name, ObjectEventHandler handler,
      std::shared_ptr<const std::atomic<uint64_t>> known = nullptr, ObjectFilter wants = nullptr);
  // See KubeClient::WatchObjectText.
  std::unique_ptr<Subscription> SubscribeText(const std::string& collection_path,
                                              const std::string& name, ObjectTextHandler handler,
                                              std::shared_ptr<const std::atomic<uint64_t>> known);
  void Unsubscribe(const std::string& collection_path, int id);

 private:
  std::unique_ptr<Subscription> Add(const std::string& collection_path, const std::string& name,
                                    ObjectEventHandler handler, ObjectTextHandler text_handler,
                                    std::shared_ptr<const std::atomic<uint64_t>> known,
                                    ObjectFilter wants);
  KubeClient& client_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<CollectionWatch>> watches_;
};

}  // namespace tenure::client
