// WatchMultiplexer, CollectionWatch: one shared watch stream per collection, resumed or relisted.
#include "client/watch_multiplexer.h"

#include <atomic>
#include <condition_variable>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <unordered_map>

#include "api/api_paths.h"
#include "api/object_head.h"
#include "api/object_members.h"
#include "api/parse_without_managed_fields.h"
#include "api/resource_version.h"
#include "client/endpoint_rotation.h"
#include "tenure/log.h"

namespace tenure::client {

using nlohmann::json;

// The stream of one collection and its subscribers.
class CollectionWatch {
 public:
  CollectionWatch(KubeClient& client, std::string path) : client_(client), path_(std::move(path)) {}
  ~CollectionWatch() { Stop(); }

  // `name` "" subscribes to every object of the collection (and to "SYNCED").
  // Each subscriber has one handler: of trees, or of text (`text_handler`, named ones only).
  int Add(const std::string& name, ObjectEventHandler handler, ObjectTextHandler text_handler,
          std::shared_ptr<const std::atomic<uint64_t>> known, ObjectFilter wants) {
    std::lock_guard lock(mu_);
    int id = next_id_++;
    auto entry = std::make_shared<Entry>();
    entry->name = name;
    entry->handler = std::move(handler);
    entry->text_handler = std::move(text_handler);
    entry->known = std::move(known);
    entry->wants = std::move(wants);
    entries_[id] = entry;
    if (name.empty()) {
      collection_subscribers_[id] = entry;
    } else {
      by_name_[name][id] = entry;
    }
    if (!thread_.joinable()) {
      thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
    } else if (name.empty()) {
      RequestRelist();  // a new collection subscriber needs the current state
    }
    return id;
  }

  // One subscriber.
  struct Entry {
    std::string name;
    ObjectEventHandler handler;
    ObjectTextHandler text_handler;  // instead of `handler`
    // The newest version of the object the subscriber has (null: it wants every event).
    std::shared_ptr<const std::atomic<uint64_t>> known;
    // A collection subscriber's choice of objects (null: all of them).
    ObjectFilter wants;
    std::mutex mu;
    bool alive = true;
    // Whether an event at `version` (0: none that orders) is news to this subscriber.
    bool Wants(uint64_t version) const {
      return known == nullptr || version == 0 || version > known->load(std::memory_order_relaxed);
    }
    // Whether this collection subscriber takes events of the object.
    bool Takes(const std::string& namespace_, const std::string& name) const {
      return wants == nullptr || wants(namespace_, name);
    }
  };

  // Takes subscriber `id` out of the watch; `empty` tells whether no subscriber is left. A
  // delivery to it may still be in progress, or start: Retire ends that.
  std::shared_ptr<Entry> Detach(int id, bool& empty) {
    std::shared_ptr<Entry> entry;
    std::lock_guard lock(mu_);
    auto it = entries_.find(id);
    if (it != entries_.end()) {
      entry = it->second;
      entries_.erase(it);
      if (entry->name.empty()) {
        collection_subscribers_.erase(id);
      } else if (auto named = by_name_.find(entry->name); named != by_name_.end()) {
        named->second.erase(id);
        if (named->second.empty()) by_name_.erase(named);
      }
    }
    empty = entries_.empty();
    return entry;
  }

  // Waits for a delivery to a detached subscriber in progress; once it returns, its handler is
  // never called again. Called without the multiplexer's lock: the handler may take a while, or
  // wait for something, and every other subscription of the client would wait with it.
  static void Retire(const std::shared_ptr<Entry>& entry) {
    if (!entry) return;
    std::lock_guard lock(entry->mu);
    entry->alive = false;
  }

  bool connected() const { return connected_.load(); }

  // Ends the current stream; the loop lists the collection again before it resumes watching.
  void RequestRelist() {
    std::lock_guard lock(conn_mu_);
    relist_requested_ = true;
    if (connection_) connection_->Interrupt();
  }

  void Stop() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    {
      std::lock_guard lock(conn_mu_);
      if (connection_) connection_->Interrupt();
    }
    backoff_cv_.notify_all();
    thread_.join();
  }

 private:
  // Names are unique per namespace only: a collection of all namespaces is keyed by both.
  using ObjectKey = std::pair<std::string, std::string>;  // namespace, name

  // An event's object, as a tree or as text, each made from the other only when a subscriber
  // asks for it: an event whose only subscribers read text is never parsed whole.
  class ObjectView {
   public:
    explicit ObjectView(const json& tree) : tree_(&tree) {}
    explicit ObjectView(std::string_view text) : text_(text) {}
    // Without metadata.managedFields, as the watch delivers trees.
    const json& Tree() {
      if (tree_ == nullptr) {
        parsed_ = api::ParseWithoutManagedFields(text_);
        tree_ = &parsed_;
      }
      return *tree_;
    }
    std::string_view Text() {
      if (tree_ != nullptr && text_.data() == nullptr) {
        dumped_ = tree_->dump();
        text_ = dumped_;
      }
      return text_;
    }

   private:
    const json* tree_ = nullptr;
    std::string_view text_;
    json parsed_;
    std::string dumped_;
  };

  // Collection subscribers (name "") get every event, and "SYNCED" after each complete listing.
  // Subscribers are found by name: a process with thousands of electors on one collection pays
  // for the event's own subscribers only, not for every subscriber.
  // `version`: the event's resourceVersion as a number (0 when it has none that orders).
  void Deliver(const std::string& type, const json& object, uint64_t version) {
    ObjectView view(object);
    Deliver(type, KeyOf(object), view, version);
  }
  void Deliver(const std::string& type, const ObjectKey& key, ObjectView& object,
               uint64_t version) {
    const auto& [namespace_, name] = key;
    std::vector<std::shared_ptr<Entry>> targets;
    {
      std::lock_guard lock(mu_);
      for (const auto& [id, e] : collection_subscribers_) {
        if (type == "SYNCED" || e->Takes(namespace_, name)) targets.push_back(e);
      }
      if (type != "SYNCED") {
        if (auto named = by_name_.find(name); named != by_name_.end()) {
          for (const auto& [id, e] : named->second) {
            if (e->Wants(version)) targets.push_back(e);
          }
        }
      }
    }
    for (const auto& e : targets) {
      std::lock_guard lock(e->mu);
      if (!e->alive) continue;
      if (e->text_handler) {
        e->text_handler(type, object.Text());
      } else {
        e->handler(type, object.Tree());
      }
    }
  }

  // Whether any subscriber would receive an event about the object at `version`.
  bool Wanted(const std::string& namespace_, const std::string& name, uint64_t version) {
    std::lock_guard lock(mu_);
    for (const auto& [id, e] : collection_subscribers_) {
      if (e->Takes(namespace_, name)) return true;
    }
    auto named = by_name_.find(name);
    if (named == by_name_.end()) return false;
    for (const auto& [id, e] : named->second) {
      if (e->Wants(version)) return true;
    }
    return false;
  }

  // An object's resourceVersion as a number, 0 when it is not one.
  static uint64_t VersionNumber(std::string_view resource_version) {
    return api::ParseResourceVersion(resource_version).value_or(0);
  }

  static ObjectKey KeyOf(const json& object) {
    return {object.value("/metadata/namespace"_json_pointer, std::string()),
            object.value("/metadata/name"_json_pointer, std::string())};
  }

  // Lists the collection: the current state is delivered (a relist after 410 must not hide a
  // change), objects gone since are reported DELETED, then collection subscribers get SYNCED.
  // Returns the list's resourceVersion.
  Result<std::string> Relist() {
    auto list = client_.Call("GET", path_, nullptr, std::chrono::seconds(30));
    if (!list.ok()) return list.status();
    std::set<ObjectKey> present;
    if (auto items = list->find("items"); items != list->end() && items->is_array()) {
      for (json& item : *items) {
        // Delivered as the watch delivers objects: without their managedFields.
        if (auto meta = item.find("metadata"); meta != item.end() && meta->is_object()) {
          meta->erase("managedFields");
        }
        present.insert(KeyOf(item));
        Deliver("MODIFIED", item,
                VersionNumber(item.value("/metadata/resourceVersion"_json_pointer, std::string())));
      }
    }
    for (const auto& [ns, name] : known_) {
      if (present.count({ns, name})) continue;
      json meta = {{"name", name}};
      if (!ns.empty()) meta["namespace"] = ns;
      Deliver("DELETED", json{{"metadata", std::move(meta)}}, 0);
    }
    known_ = std::move(present);
    Deliver("SYNCED", json::object(), 0);
    return list->value("/metadata/resourceVersion"_json_pointer, std::string());
  }

  bool RelistRequested() {
    std::lock_guard lock(conn_mu_);
    return relist_requested_;
  }

  void Backoff(std::stop_token stop, std::chrono::milliseconds& delay) {
    std::unique_lock lock(backoff_mu_);
    backoff_cv_.wait_for(lock, stop, delay, [] { return false; });
    delay = std::min(delay * 2, std::chrono::milliseconds(5000));
  }

  void Loop(std::stop_token stop) {
    std::string rv;
    auto delay = std::chrono::milliseconds(100);
    while (!stop.stop_requested()) {
      {
        std::lock_guard lock(conn_mu_);
        if (relist_requested_) rv.clear();
        relist_requested_ = false;
      }
      if (rv.empty()) {
        auto listed = Relist();
        if (!listed.ok()) {
          if (!stop.stop_requested()) {
            Log(LogLevel::kWarning, "watch", "list failed; retrying",
                {{"path", path_}, {"error", listed.status().ToString()}});
          }
          Backoff(stop, delay);
          continue;
        }
        rv = *listed;
      }
      // The endpoint every request goes to now; when it fails, the client rotates and the
      // next stream resumes from `rv` on another replica (resourceVersions are shared).
      size_t endpoint = client_.current_endpoint();
      // Credentials first: an exec plugin's client certificate goes into the new connection.
      auto headers = client_.Headers("");
      if (!headers.ok()) {
        if (!stop.stop_requested()) {
          Log(LogLevel::kWarning, "watch", "no credentials for the watch; retrying",
              {{"path", path_}, {"error", headers.status().ToString()}});
        }
        Backoff(stop, delay);
        continue;
      }
      auto connection = client_.NewConnection(endpoint);
      {
        std::lock_guard lock(conn_mu_);
        connection_ = connection.get();
        if (stop.stop_requested() || relist_requested_) connection->Interrupt();
      }
      client_.CountRequest();
      std::string target =
          client_.config().path_prefix + api::WithQuery(path_, {{"watch", "true"},
                                                                {"allowWatchBookmarks", "true"},
                                                                {"timeoutSeconds", "1800"},
                                                                {"resourceVersion", rv}});
      auto head = connection->StartStream(target, *headers, std::chrono::seconds(30));
      if (head.ok() && head->status == 401) client_.CredentialsRejected(*headers);
      bool healthy = head.ok() && head->status == 200;
      // A replica that cannot start the stream, or answers that it cannot serve, is treated as
      // failed (not when we interrupted it).
      bool cannot_serve = head.ok() && ReplicaCannotServe(head->status);
      if ((!head.ok() || cannot_serve) && !stop.stop_requested() && !RelistRequested()) {
        client_.EndpointFailed(endpoint);
      }
      connected_ = healthy;
      const auto started = std::chrono::steady_clock::now();
      bool heard = false;  // an event or bookmark came on this stream
      while (healthy && !stop.stop_requested()) {
        auto line = connection->ReadLine(std::chrono::seconds(1900));
        if (!line.ok()) {
          // end of stream, timeout, lost connection or interrupt; a lost connection means the
          // replica may be gone: look elsewhere at once (an interrupt or a server's normal end of
          // the watch keeps the endpoint).
          if (line.status().reason() == Reason::kServiceUnavailable && !stop.stop_requested() &&
              !RelistRequested()) {
            client_.EndpointFailed(endpoint);
          }
          break;
        }
        // The event's head first: an event about an object nobody here subscribed to is
        // never parsed whole (a process's electors see every Lease of their namespace).
        std::string type;
        api::ObjectHead head;
        if (!api::ReadWatchEventHead(*line, type, head)) continue;
        if (type == "ERROR") {
          json event = json::parse(*line, nullptr, false);
          if (event.is_object() && event["object"].value("code", 0) == 410) {
            Log(LogLevel::kInfo, "watch", "resourceVersion expired; listing again",
                {{"path", path_}, {"resource_version", rv}});
            rv.clear();  // expired: relist, at once
            heard = true;
          }
          break;
        }
        // Not a watch event (a list or a Status sent by a server that ignores watch=true, each
        // ended by a newline as Go's encoder ends them): skipped, and not a sign of a stream.
        if (type != "ADDED" && type != "MODIFIED" && type != "DELETED" && type != "BOOKMARK") {
          continue;
        }
        // A wanted event is checked whole before it counts as received: a line whose head reads
        // but whose rest does not is skipped, and the resume point does not move past it. It is
        // parsed only for subscribers of trees (ObjectView).
        std::string_view object_text;
        const uint64_t version = VersionNumber(head.resource_version);
        if (type != "BOOKMARK" && Wanted(head.namespace_, head.name, version)) {
          auto members = api::ReadObjectMembers(*line);
          const api::ObjectMember* object = members ? api::FindMember(*members, "object") : nullptr;
          if (object == nullptr || (*line)[object->begin] != '{') continue;
          object_text = std::string_view(*line).substr(object->begin, object->end - object->begin);
        }
        heard = true;
        delay = std::chrono::milliseconds(100);  // the stream works: the next pause starts short
        if (!head.resource_version.empty()) rv = head.resource_version;
        if (type == "BOOKMARK") continue;
        ObjectKey key{head.namespace_, head.name};
        if (object_text.data() != nullptr) {
          ObjectView view(object_text);
          Deliver(type, key, view, version);
        }
        if (type == "DELETED")
          known_.erase(key);
        else
          known_.insert(std::move(key));
      }
      connected_ = false;
      {
        std::lock_guard lock(conn_mu_);
        connection_ = nullptr;
      }
      if (head.ok() && head->status == 410) rv.clear();
      // A stream that ended within a second without an event or bookmark (a server or proxy
      // that answers watch=true with a plain reply, say) is started again only after a pause,
      // as client-go's reflector does after a "very short watch": at once, it would be a loop
      // of requests as fast as the server answers.
      const bool very_short =
          healthy && !heard && std::chrono::steady_clock::now() - started < std::chrono::seconds(1);
      if (very_short && !stop.stop_requested() && !RelistRequested()) {
        if (!warned_short_) {
          Log(LogLevel::kWarning, "watch",
              "the watch ended at once without an event; starting it again after a pause",
              {{"path", path_}, {"resource_version", rv}});
        }
        warned_short_ = true;
      } else if (healthy && heard) {
        warned_short_ = false;
      }
      if ((!healthy || very_short) && !RelistRequested()) Backoff(stop, delay);
    }
  }

  KubeClient& client_;
  std::string path_;
  bool warned_short_ = false;  // the loop's own: a very short watch was logged
  std::mutex mu_;
  int next_id_ = 0;
  std::map<int, std::shared_ptr<Entry>> entries_;  // every subscriber, by id
  // The same subscribers, by what they receive (guarded by mu_ too).
  std::map<int, std::shared_ptr<Entry>> collection_subscribers_;
  std::unordered_map<std::string, std::map<int, std::shared_ptr<Entry>>> by_name_;
  std::set<ObjectKey> known_;  // objects present, for DELETED after a relist
  std::atomic<bool> connected_{false};
  std::mutex conn_mu_;
  HttpConnection* connection_ = nullptr;
  bool relist_requested_ = false;  // guarded by conn_mu_
  std::mutex backoff_mu_;
  std::condition_variable_any backoff_cv_;
  std::jthread thread_;
};

namespace {
class MultiplexedSubscription final : public Subscription {
 public:
  MultiplexedSubscription(WatchMultiplexer& owner, std::string path, int id,
                          std::shared_ptr<CollectionWatch> watch)
      : owner_(owner), path_(std::move(path)), id_(id), watch_(std::move(watch)) {}
  ~MultiplexedSubscription() override { owner_.Unsubscribe(path_, id_); }
  bool active() const override { return watch_->connected(); }

 private:
  WatchMultiplexer& owner_;
  std::string path_;
  int id_;
  std::shared_ptr<CollectionWatch> watch_;
};
}  // namespace

WatchMultiplexer::WatchMultiplexer(KubeClient& client) : client_(client) {}

WatchMultiplexer::~WatchMultiplexer() {
  std::map<std::string, std::shared_ptr<CollectionWatch>> watches;
  {
    std::lock_guard lock(mu_);
    watches.swap(watches_);
  }
  for (auto& [path, watch] : watches) watch->Stop();
}

std::unique_ptr<Subscription> WatchMultiplexer::Subscribe(
    const std::string& collection_path, const std::string& name, ObjectEventHandler handler,
    std::shared_ptr<const std::atomic<uint64_t>> known, ObjectFilter wants) {
  return Add(collection_path, name, std::move(handler), nullptr, std::move(known),
             std::move(wants));
}

std::unique_ptr<Subscription> WatchMultiplexer::SubscribeText(
    const std::string& collection_path, const std::string& name, ObjectTextHandler handler,
    std::shared_ptr<const std::atomic<uint64_t>> known) {
  return Add(collection_path, name, nullptr, std::move(handler), std::move(known), nullptr);
}

std::unique_ptr<Subscription> WatchMultiplexer::Add(
    const std::string& collection_path, const std::string& name, ObjectEventHandler handler,
    ObjectTextHandler text_handler, std::shared_ptr<const std::atomic<uint64_t>> known,
    ObjectFilter wants) {
  std::lock_guard lock(mu_);
  auto& watch = watches_[collection_path];
  if (!watch) watch = std::make_shared<CollectionWatch>(client_, collection_path);
  int id = watch->Add(name, std::move(handler), std::move(text_handler), std::move(known),
                      std::move(wants));
  return std::make_unique<MultiplexedSubscription>(*this, collection_path, id, watch);
}

void WatchMultiplexer::Unsubscribe(const std::string& collection_path, int id) {
  std::shared_ptr<CollectionWatch> finished;
  std::shared_ptr<CollectionWatch::Entry> entry;
  {
    std::lock_guard lock(mu_);
    auto it = watches_.find(collection_path);
    if (it == watches_.end()) return;
    bool empty = false;
    entry = it->second->Detach(id, empty);
    if (empty) {
      finished = it->second;
      watches_.erase(it);
    }
  }
  CollectionWatch::Retire(entry);
  if (finished) finished->Stop();
}

}  // namespace tenure::client
