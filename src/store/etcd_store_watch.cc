// EtcdStore's watch feed: one etcd watch on the whole prefix feeding the WatchHub, resumed after
// the last published revision on any live member, with progress requests and a silence limit.
#include <pthread.h>

#include <cstdio>

#include "store/etcd_store_impl.h"
#include "tenure/log.h"

namespace tenure::store {
namespace {

using WatchStream = grpc::ClientReaderWriter<pb::WatchRequest, pb::WatchResponse>;

// Keeps one watch stream honest while it is read: after a quiet spell of a quarter of `limit`
// it asks etcd for a progress report, and it cancels the stream once nothing at all arrived for
// `limit`. Writes race only with the reader's Read, which gRPC allows; the owner cancels the
// context before destroying it, so a Write in progress returns.
class SilenceWatchdog {
 public:
  SilenceWatchdog(WatchStream& stream, grpc::ClientContext& context,
                  std::chrono::milliseconds limit)
      : stream_(stream), context_(context), limit_(limit), heard_(Now()) {
    thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
  }
  ~SilenceWatchdog() {
    thread_.request_stop();
    cv_.notify_all();
  }
  void Heard() { heard_.store(Now(), std::memory_order_relaxed); }
  bool fired() const { return fired_.load(); }

 private:
  static int64_t Now() { return std::chrono::steady_clock::now().time_since_epoch().count(); }
  void Run(std::stop_token stop) {
    const auto ask_after = std::chrono::nanoseconds(limit_) / 4;
    int64_t asked = 0;  // the silence (heard_) a progress request was already sent for
    std::mutex mu;
    std::unique_lock lock(mu);
    while (!stop.stop_requested()) {
      cv_.wait_for(lock, stop, ask_after / 2, [] { return false; });
      if (stop.stop_requested()) return;
      int64_t heard = heard_.load(std::memory_order_relaxed);
      auto quiet = std::chrono::nanoseconds(Now() - heard);
      if (quiet >= limit_) {
        fired_ = true;
        context_.TryCancel();
        return;
      }
      if (quiet >= ask_after && asked != heard) {
        asked = heard;
        pb::WatchRequest progress;
        progress.mutable_progress_request();
        if (!stream_.Write(progress)) return;  // the stream ended: the reader sees it too
      }
    }
  }

  WatchStream& stream_;
  grpc::ClientContext& context_;
  const std::chrono::milliseconds limit_;
  std::atomic<int64_t> heard_;
  std::atomic<bool> fired_{false};
  std::condition_variable_any cv_;
  std::jthread thread_;  // last: stopped and joined before the members it uses go
};

}  // namespace

size_t EtcdStore::Impl::HistoryCapacity() const {
  return WatchHub::CapacityFor(static_cast<size_t>(std::max<int64_t>(object_count, 0)),
                               options.watch_history_capacity, options.watch_history_min,
                               options.watch_history_per_object);
}

void EtcdStore::Impl::CountObjects(const std::vector<Event>& events) {
  for (const Event& e : events) {
    if (e.type == Event::Type::kCreated) ++object_count;
    if (e.type == Event::Type::kDeleted) --object_count;
  }
  if (size_t capacity = HistoryCapacity(); capacity != history_capacity) {
    history_capacity = capacity;
    hub->SetHistoryCapacity(capacity);
  }
}

Result<int64_t> EtcdStore::Impl::LoadResident() {
  auto listed = ListFromEtcd(kStoreRoot, ListOptions{});
  if (!listed.ok()) return listed.status();
  resident->Reset(std::move(listed->items), listed->revision);
  copy_loads.fetch_add(1);
  return listed->revision;
}

// Feeds the hub (and the resident copy) from one etcd watch, reconnecting after failures and
// resuming after the last revision seen. With the resident copy the watch covers every key, so
// that its revision follows etcd's (a write outside the prefix, such as compact_rev_key, moves
// it too); only the prefix's events are published.
void EtcdStore::Impl::RunFeeder(int64_t start_revision) {
  pthread_setname_np(pthread_self(), "etcd-watch");
  const auto range = EtcdRange(kStoreRoot);
  const auto in_range = [&](const std::string& key) {
    return key >= range->first && (range->second == std::string(1, '\0') || key < range->second);
  };
  int64_t next = start_revision + 1;
  bool reload = false;  // the resident copy missed events: list it again before watching
  while (!IsStopping()) {
    if (reload) {
      if (auto loaded = LoadResident(); !loaded.ok()) {
        std::unique_lock lock(mu);
        cv.wait_for(lock, kReconnectPause, [&] { return stopping; });
        continue;
      }
      reload = false;
    }
    int idx = WaitForReady(SysClock::now() + std::chrono::seconds(1));
    if (idx < 0) continue;
    auto context = std::make_shared<grpc::ClientContext>();
    // etcd cancels the watch when its member loses the leader (a partitioned member would
    // otherwise keep the stream open and silent).
    RequireLeader(*context);
    {
      std::lock_guard lock(mu);
      if (stopping) break;
      watch_context = context;
    }
    watch_endpoint.store(idx);
    auto stream = endpoints[idx].watch->Watch(context.get());
    pb::WatchRequest request;
    pb::WatchCreateRequest* create = request.mutable_create_request();
    if (resident) {
      create->set_key(std::string(1, '\0'));
      create->set_range_end(std::string(1, '\0'));
    } else {
      create->set_key(range->first);
      create->set_range_end(range->second);
    }
    create->set_start_revision(next);
    create->set_prev_kv(true);
    create->set_progress_notify(true);
    pb::WatchResponse response;
    bool silent = false;
    if (stream->Write(request)) {
      SilenceWatchdog watchdog(*stream, *context, options.watch_silence_limit);
      while (stream->Read(&response)) {
        watchdog.Heard();
        SawRevision(response.header().revision());
        if (response.canceled()) {
          if (response.compact_revision() > 0) {
            Log(LogLevel::kWarning, "etcd",
                "watch resume failed: etcd compacted past it, watchers miss the events in between",
                {{"revision", std::to_string(next)},
                 {"compacted_to", std::to_string(response.compact_revision())}});
            next = response.compact_revision();
            if (resident) {
              resident->Invalidate();
              reload = true;
            }
          }
          break;
        }
        if (response.events_size() == 0) continue;
        std::vector<Event> events;
        events.reserve(static_cast<size_t>(response.events_size()));
        for (const mvccpb::Event& e : response.events()) {
          if (!in_range(e.kv().key())) continue;
          events.push_back(ToEvent(e));
        }
        const int64_t last = response.events(response.events_size() - 1).kv().mod_revision();
        next = last + 1;
        CountObjects(events);
        if (resident) {
          // The copy first: a client that saw the event on a watch then reads it back.
          std::vector<PublishedEvent> published = resident->Apply(std::move(events), last);
          for (const PublishedEvent& p : published) {
            known.Settled(p.event->key, p.event->mod_revision);  // the copy holds it now
          }
          hub->Publish(std::move(published));
        } else {
          for (const Event& event : events) Watched(event);
          hub->Publish(std::move(events));
        }
      }
      silent = watchdog.fired();
      context->TryCancel();
    }
    context->TryCancel();
    (void)stream->Finish();
    if (silent && !IsStopping()) {
      Log(LogLevel::kWarning, "etcd",
          "the watch delivered nothing (no event, no progress report): resuming it on another "
          "member",
          {{"member", endpoints[idx].url},
           {"silent_ms", std::to_string(options.watch_silence_limit.count())}});
      MarkSuspect(static_cast<size_t>(idx));
    }
    {
      std::unique_lock lock(mu);
      watch_context.reset();
      if (stopping) break;
      MoveAwayFrom(static_cast<size_t>(idx));
      cv.wait_for(lock, kReconnectPause, [&] { return stopping; });
    }
  }
}

}  // namespace tenure::store
