// LocalCollectionWatch: a kind's objects from the server's store, delivered in process.
#include "server/local_collection_watch.h"

#include "api/parse_without_managed_fields.h"
#include "server/storage_key.h"
#include "tenure/log.h"

namespace tenure::server {

using nlohmann::json;

LocalCollectionWatch::LocalCollectionWatch(std::shared_ptr<store::Store> store,
                                           const api::KindInfo& kind, std::string version,
                                           Handler handler, Options options)
    : store_(std::move(store)),
      kind_(kind),
      version_(std::move(version)),
      prefix_(StoragePrefix(kind, "")),
      handler_(std::move(handler)),
      options_(options) {}

Result<std::unique_ptr<LocalCollectionWatch>> LocalCollectionWatch::Start(
    std::shared_ptr<store::Store> store, const api::KindInfo& kind, std::string version,
    Handler handler, Options options) {
  std::unique_ptr<LocalCollectionWatch> watch(new LocalCollectionWatch(
      std::move(store), kind, std::move(version), std::move(handler), options));
  auto listed = watch->Deliver(/*reset=*/false);
  if (!listed.ok()) return listed.status();
  // Watched from the listing's revision: every later change follows it. (0 would mean "from
  // now" to the store; a server's store is never at 0, it holds its namespaces.)
  LocalCollectionWatch* self = watch.get();
  // The store's thread only queues: the handler runs on this watch's thread.
  auto handle = watch->store_->Watch(watch->prefix_, *listed,
                                     [self](const auto& events) { self->Enqueue(events); });
  if (!handle.ok()) return handle.status();
  watch->handle_ = std::move(*handle);
  watch->thread_ = std::jthread([self](std::stop_token stop) { self->Run(stop); });
  return watch;
}

LocalCollectionWatch::~LocalCollectionWatch() {
  // No more events queued once the handle is gone; then the thread stops.
  handle_.reset();
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

json LocalCollectionWatch::Served(const store::KeyValue& kv) const {
  json object = api::ParseWithoutManagedFields(kv.value);
  if (!object.is_object()) return json::object();  // not JSON: the store's values always are
  if (kind_.from_storage != nullptr) object = kind_.from_storage(object);
  object["apiVersion"] = kind_.api_version(version_);
  object["metadata"]["resourceVersion"] = std::to_string(kv.mod_revision);
  return object;
}

Result<int64_t> LocalCollectionWatch::Deliver(bool reset) {
  auto listed = store_->List(prefix_);
  if (!listed.ok()) return listed.status();
  if (reset) Send("RESET", nullptr);
  for (const store::KeyValue& kv : listed->items) Send("MODIFIED", &kv);
  Send("SYNCED", nullptr);
  return listed->revision;
}

void LocalCollectionWatch::Enqueue(const std::vector<store::Event>& events) {
  {
    std::lock_guard lock(mu_);
    if (start_over_) return;  // the listing to come covers these
    if (queued_.size() + events.size() > options_.max_queued) {
      // The handler is this far behind: rather than hold every event in memory, list again.
      StartOverLocked();
    } else {
      for (const store::Event& e : events) {
        queued_.push_back({e.type, e.kv, nullptr});  // what it replaced is not needed
      }
    }
  }
  wake_.notify_one();
}

void LocalCollectionWatch::Run(std::stop_token stop) {
  using Type = store::Event::Type;
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    if (start_over_) {
      // Events queue again from here on, also while the listing is delivered: those it covers
      // are skipped by their revision, the later ones follow it.
      start_over_ = false;
      queued_.clear();
      lock.unlock();
      auto listed = Deliver(/*reset=*/true);
      lock.lock();
      if (!listed.ok()) {
        if (active_.exchange(false)) {
          Log(LogLevel::kWarning, "server", "an in-process watch cannot list its objects again",
              {{"prefix", prefix_}, {"error", listed.status().message()}});
        }
        start_over_ = true;
        queued_.clear();
        wake_.wait_for(lock, stop, options_.list_again_after, [] { return false; });
        continue;
      }
      active_ = true;
      listed_revision_ = *listed;
      continue;
    }
    if (queued_.empty()) {
      wake_.wait(lock, stop, [&] { return start_over_ || !queued_.empty(); });
      continue;
    }
    store::Event e = std::move(queued_.front());
    queued_.pop_front();
    if (e.kv.mod_revision <= listed_revision_) continue;  // in the last listing already
    if (e.type == Type::kDeleted && e.kv.value.empty()) {
      // The store no longer had the deleted object (etcd compacted it): start over.
      StartOverLocked();
      continue;
    }
    lock.unlock();
    Send(e.type == Type::kCreated   ? "ADDED"
         : e.type == Type::kDeleted ? "DELETED"
                                    : "MODIFIED",
         &e.kv);
    lock.lock();
  }
}

void LocalCollectionWatch::StartOverLocked() {
  queued_.clear();
  start_over_ = true;
  start_overs_.fetch_add(1);
}

void LocalCollectionWatch::Send(const char* type, const store::KeyValue* kv) {
  try {
    handler_(type, kv != nullptr ? Served(*kv) : json::object());
  } catch (const std::exception& e) {
    Log(LogLevel::kError, "server", "an in-process watch could not deliver an object",
        {{"key", kv != nullptr ? kv->key : std::string()}, {"error", e.what()}});
  }
}

}  // namespace tenure::server
