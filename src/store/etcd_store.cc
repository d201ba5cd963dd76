// EtcdStore: opening (option checks, connection, threads), shutdown and the Store calls; the
// parts they use are in etcd_store_*.cc (see etcd_store_impl.h).
#include "store/etcd_store.h"

#include <algorithm>
#include <utility>

#include "store/etcd_store_impl.h"

namespace tenure::store {

void EtcdStore::Impl::Shutdown() {
  if (compactor.joinable()) {
    compactor.request_stop();
    compactor.join();
  }
  {
    std::unique_lock lock(mu);
    stopping = true;
    if (watch_context) watch_context->TryCancel();
    // Writes not sent yet are answered by the writer threads (not applied), as callbacks run on
    // a store thread.
    for (auto& call : waiting_to_send) queue.push_back(std::move(*call));
    waiting_to_send.clear();
    cv.notify_all();
  }
  // Writes being sent end by their deadline at the latest; their answers may still queue
  // resends, which the writers then fail.
  {
    std::unique_lock lock(mu);
    sent_cv.wait(lock, [&] { return sending == 0; });
  }
  for (std::thread& writer : writers) {
    if (writer.joinable()) writer.join();
  }
  if (feeder.joinable()) feeder.join();
  if (hub) hub->Shutdown();
}

Result<std::unique_ptr<EtcdStore>> EtcdStore::Open(const EtcdStoreOptions& options) {
  if (options.prefix.find('\0') != std::string::npos) {
    return Status::BadRequest("etcd store: prefix contains a NUL byte");
  }
  if (options.list_page_size <= 0)
    return Status::BadRequest("etcd store: list page size must be positive");
  if (options.request_timeout <= std::chrono::milliseconds(0)) {
    return Status::BadRequest("etcd store: request timeout must be positive");
  }
  if (options.attempt_timeout <= std::chrono::milliseconds(0)) {
    return Status::BadRequest("etcd store: attempt timeout must be positive");
  }
  if (options.watch_silence_limit < std::chrono::milliseconds(100)) {
    return Status::BadRequest("etcd store: watch silence limit must be at least 100 ms");
  }
  if (options.compaction_interval < std::chrono::nanoseconds(0)) {
    return Status::BadRequest("etcd store: compaction interval must not be negative");
  }
  if (options.watch_cache_wait < std::chrono::milliseconds(0)) {
    return Status::BadRequest("etcd store: watch cache wait must not be negative");
  }
  auto impl = std::make_shared<Impl>(options);
  if (!impl->options.clock) impl->options.clock = Clock::Real();
  if (Status s = impl->Connect(); !s.ok()) return s;
  auto revision = impl->FetchRevision();
  if (!revision.ok()) {
    return Status(revision.status().reason(),
                  "etcd store: cannot reach any endpoint: " + revision.status().message());
  }
  if (options.reads_from_watch_cache) {
    impl->resident = std::make_unique<ResidentState>();
    revision = impl->LoadResident();
    if (!revision.ok()) {
      return Status(revision.status().reason(),
                    "etcd store: cannot list the stored objects: " + revision.status().message());
    }
    impl->object_count = static_cast<int64_t>(impl->resident->size());
  } else {
    auto objects = impl->FetchObjectCount(*revision);
    if (!objects.ok()) {
      return Status(objects.status().reason(),
                    "etcd store: cannot count the stored objects: " + objects.status().message());
    }
    impl->object_count = *objects;
  }
  impl->history_capacity = impl->HistoryCapacity();
  impl->hub = std::make_unique<WatchHub>(options.watch_history_capacity, *revision,
                                         options.watch_history_bytes);
  impl->hub->SetHistoryMinAge(options.watch_history_min_age, impl->options.clock);
  impl->hub->SetHistoryCapacity(impl->history_capacity);
  for (size_t n = 0; n < std::max<size_t>(1, options.max_writes_in_flight); ++n) {
    impl->writers.emplace_back([i = impl.get()] { i->RunWriter(); });
  }
  impl->feeder = std::thread([i = impl.get(), r = *revision] { i->RunFeeder(r); });
  if (options.compaction_interval > std::chrono::nanoseconds(0)) {
    impl->compactor =
        std::jthread([i = impl.get()](std::stop_token stop) { i->RunCompactor(stop); });
  }
  return std::unique_ptr<EtcdStore>(new EtcdStore(std::move(impl)));
}

EtcdStore::EtcdStore(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

EtcdStore::~EtcdStore() { impl_->Shutdown(); }

void EtcdStore::Close() { impl_->Shutdown(); }

int64_t EtcdStore::CurrentRevision() {
  auto revision = impl_->FetchRevision();
  return revision.ok() ? *revision : impl_->last_seen_revision.load();
}

void EtcdStore::Write(WriteOp op, WriteCallback done) {
  impl_->Write(std::move(op), std::move(done));
}

Result<std::unique_ptr<WatchHandle>> EtcdStore::Watch(std::string_view prefix,
                                                      int64_t from_revision,
                                                      EventCallback on_events) {
  if (from_revision < 0) return Status::BadRequest("negative resource version");
  if (from_revision == 0) {
    auto revision = impl_->FetchRevision();
    if (!revision.ok()) return revision.status();
    from_revision = *revision;
  } else {
    // etcd's history is the authority on what was compacted (the hub may still hold more).
    auto response = impl_->FetchRevision(from_revision);
    if (!response.ok() && response.status().IsGone()) {
      return Status::Gone("too old resource version: " + std::to_string(from_revision) +
                          " (compacted in etcd)");
    }
    // A future revision is fine (the hub filters up to it); other failures are the caller's.
    if (!response.ok() && response.status().reason() != Reason::kBadRequest) {
      return response.status();
    }
  }
  return impl_->hub->Watch(prefix, from_revision, std::move(on_events));
}

std::string EtcdStore::CurrentEndpoint() const {
  return impl_->endpoints[impl_->current.load()].url;
}

std::string EtcdStore::WatchEndpoint() const {
  int idx = impl_->watch_endpoint.load();
  return idx < 0 ? std::string() : impl_->endpoints[static_cast<size_t>(idx)].url;
}

}  // namespace tenure::store
