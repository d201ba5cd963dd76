// WatchHub: the watch history and the fan-out to watchers on one dispatcher thread.
#include "store/watch_hub.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

namespace tenure::store {
namespace {

// A published event as the hub keeps it: `bytes` is what it counts in the history.
struct KeptEvent {
  SharedEvent event;
  std::shared_ptr<const KeyValue> previous;
  size_t bytes = 0;
};

int64_t RevisionOf(const KeptEvent& e) { return e.event->kv.mod_revision; }

// What one event of the history costs, roughly: its key and value plus bookkeeping.
size_t EventBytes(const Event& e) { return e.kv.key.size() + e.kv.value.size() + 128; }

// The copy a watcher receives: the event with its previous value.
Event Delivered(const KeptEvent& e) {
  Event copy = *e.event;
  copy.previous = e.previous;
  return copy;
}

struct Watcher {
  uint64_t id = 0;
  std::string prefix;
  EventCallback callback;
  // Every event with revision <= last_queued has been queued for this watcher or did not match.
  int64_t last_queued = 0;
  std::vector<KeptEvent> pending;
  bool queued = false;     // in the run queue
  bool running = false;    // its callback is executing on running_thread
  bool cancelled = false;  // its handle was destroyed
  std::thread::id running_thread;
};

}  // namespace

struct WatchHub::Core {
  mutable std::mutex mu;
  std::condition_variable work_cv;  // the dispatcher waits for inbox/run queue work
  std::condition_variable done_cv;  // handle destructors wait for a running callback

  size_t max_events = 0;  // the ceiling
  size_t capacity = 0;    // the store's bound (SetHistoryCapacity), at most max_events
  std::chrono::nanoseconds min_age{0};  // younger events stay beyond `capacity` (not the ceiling)
  std::shared_ptr<Clock> clock;         // for min_age; null: no minimum age
  size_t max_bytes = 0;
  size_t bytes = 0;                           // of the events in history (EventBytes)
  std::deque<KeptEvent> history;              // consecutive published events, oldest first
  std::deque<Clock::TimePoint> published_at;  // of each event of `history` (with a clock)
  int64_t oldest_watchable = 0;  // revision of the newest dropped event, or the start revision
  int64_t head = 0;              // revision of the newest published event

  std::deque<std::vector<KeptEvent>> inbox;  // published, not yet fanned out
  std::map<std::string, std::unordered_map<uint64_t, std::shared_ptr<Watcher>>, std::less<>>
      groups;  // watchers by prefix
  size_t watcher_count = 0;
  std::deque<std::shared_ptr<Watcher>> run_queue;  // watchers with pending events
  uint64_t next_id = 1;
  bool stopping = false;

  std::thread dispatcher;  // touched only by the WatchHub constructor and destructor

  // Appends a published batch to the history and hands it to the dispatcher.
  void Append(std::vector<KeptEvent> batch);

  // Requires mu. Drops the oldest events beyond the bounds (the newest one is always kept).
  void Trim(std::vector<KeptEvent>& dropped) {
    const Clock::TimePoint now = clock ? clock->now() : Clock::TimePoint();
    auto over = [&] {
      if (history.size() > max_events || (bytes > max_bytes && history.size() > 1)) return true;
      if (history.size() <= capacity) return false;
      return !clock || now - published_at.front() >= min_age;
    };
    while (!history.empty() && over()) {
      oldest_watchable = RevisionOf(history.front());
      bytes -= history.front().bytes;
      dropped.push_back(std::move(history.front()));
      history.pop_front();
      if (!published_at.empty()) published_at.pop_front();
    }
  }

  // Requires mu.
  void Enqueue(const std::shared_ptr<Watcher>& w, const KeptEvent& e) {
    w->pending.push_back(e);
    w->last_queued = RevisionOf(e);
    if (!w->queued) {
      w->queued = true;
      run_queue.push_back(w);
    }
  }

  // Requires mu.
  void FanOut(const std::vector<KeptEvent>& batch) {
    auto deliver = [&](const KeptEvent& e, auto& group) {
      for (auto& [id, w] : group) {
        if (RevisionOf(e) > w->last_queued) Enqueue(w, e);
      }
    };
    for (const KeptEvent& e : batch) {
      std::string_view key = e.event->kv.key;
      if (groups.size() <= key.size() + 1) {
        // Few distinct prefixes: test each; only prefixes <= key can be prefixes of key.
        auto end = groups.upper_bound(key);
        for (auto it = groups.begin(); it != end; ++it) {
          if (key.starts_with(it->first)) deliver(e, it->second);
        }
      } else {
        // Many distinct prefixes: look up each prefix of the key.
        for (size_t n = 0; n <= key.size(); ++n) {
          auto it = groups.find(key.substr(0, n));
          if (it != groups.end()) deliver(e, it->second);
        }
      }
    }
  }

  void Run() {
    std::unique_lock lock(mu);
    while (true) {
      work_cv.wait(lock, [&] { return stopping || !inbox.empty() || !run_queue.empty(); });
      if (stopping) return;
      while (!inbox.empty()) {
        std::vector<KeptEvent> batch = std::move(inbox.front());
        inbox.pop_front();
        FanOut(batch);
      }
      if (run_queue.empty()) continue;
      std::shared_ptr<Watcher> w = std::move(run_queue.front());
      run_queue.pop_front();
      w->queued = false;
      if (w->cancelled || w->pending.empty()) continue;
      std::vector<KeptEvent> events = std::move(w->pending);
      w->pending.clear();
      w->running = true;
      w->running_thread = std::this_thread::get_id();
      lock.unlock();
      {
        std::vector<Event> delivered;
        delivered.reserve(events.size());
        for (const KeptEvent& e : events) delivered.push_back(Delivered(e));
        events.clear();
        // Safe without the lock: the callback is only released while not running.
        w->callback(delivered);
      }
      lock.lock();
      w->running = false;
      if (w->cancelled) {
        // The handle was destroyed from inside this callback: release it outside the lock.
        EventCallback released;
        released.swap(w->callback);
        lock.unlock();
        released = nullptr;
        lock.lock();
      }
      done_cv.notify_all();
    }
  }
};

namespace {

class HubWatchHandle : public WatchHandle {
 public:
  HubWatchHandle(std::shared_ptr<WatchHub::Core> core, std::shared_ptr<Watcher> watcher)
      : core_(std::move(core)), watcher_(std::move(watcher)) {}

  ~HubWatchHandle() override {
    EventCallback released;
    std::vector<KeptEvent> dropped;
    {
      std::unique_lock lock(core_->mu);
      Watcher& w = *watcher_;
      if (!w.cancelled) {
        w.cancelled = true;
        auto group = core_->groups.find(w.prefix);
        if (group != core_->groups.end()) {
          if (group->second.erase(w.id) > 0) --core_->watcher_count;
          if (group->second.empty()) core_->groups.erase(group);
        }
        dropped.swap(w.pending);
      }
      if (w.running) {
        // From inside its own callback the callback is still on the stack: the dispatcher
        // releases it when it returns, and never calls it again.
        if (w.running_thread == std::this_thread::get_id()) return;
        core_->done_cv.wait(lock, [&] { return !w.running; });
      }
      released.swap(w.callback);
    }
    // `released` and `dropped` are destroyed here, outside the lock.
  }

 private:
  std::shared_ptr<WatchHub::Core> core_;
  std::shared_ptr<Watcher> watcher_;
};

}  // namespace

WatchHub::WatchHub(size_t history_capacity, int64_t start_revision, size_t history_bytes)
    : core_(std::make_shared<Core>()) {
  core_->max_events = core_->capacity = history_capacity;
  core_->max_bytes = history_bytes;
  core_->oldest_watchable = start_revision;
  core_->head = start_revision;
  core_->dispatcher = std::thread([core = core_.get()] { core->Run(); });
}

WatchHub::~WatchHub() {
  Shutdown();
  // Free memory now; handles may keep the core alive. Destroy outside the lock.
  std::deque<KeptEvent> history;
  std::deque<std::vector<KeptEvent>> inbox;
  std::deque<std::shared_ptr<Watcher>> run_queue;
  std::vector<std::shared_ptr<Watcher>> watchers;
  {
    std::lock_guard lock(core_->mu);
    history.swap(core_->history);
    inbox.swap(core_->inbox);
    run_queue.swap(core_->run_queue);
    for (auto& [prefix, group] : core_->groups) {
      for (auto& [id, w] : group) {
        w->pending.clear();
        watchers.push_back(w);
      }
    }
    core_->groups.clear();
    core_->watcher_count = 0;
  }
}

void WatchHub::Shutdown() {
  {
    std::lock_guard lock(core_->mu);
    core_->stopping = true;
  }
  core_->work_cv.notify_all();
  if (core_->dispatcher.joinable()) core_->dispatcher.join();
}

void WatchHub::Publish(std::vector<Event> events) {
  std::vector<KeptEvent> batch;
  batch.reserve(events.size());
  for (Event& e : events) {
    KeptEvent entry;
    entry.previous = std::move(e.previous);  // beside the event, not in it
    entry.bytes = EventBytes(e) + (entry.previous ? entry.previous->value.size() : 0);
    entry.event = std::make_shared<const Event>(std::move(e));
    batch.push_back(std::move(entry));
  }
  core_->Append(std::move(batch));
}

void WatchHub::Publish(std::vector<PublishedEvent> events) {
  std::vector<KeptEvent> batch;
  batch.reserve(events.size());
  for (PublishedEvent& e : events) {
    // The previous value counts too, although the caller's state may hold it as well: the
    // history may be the last to hold it (the caller's state moved on, or dropped it first).
    const size_t bytes = EventBytes(*e.event) + (e.previous ? e.previous->value.size() : 0);
    batch.push_back({std::move(e.event), std::move(e.previous), bytes});
  }
  core_->Append(std::move(batch));
}

void WatchHub::Core::Append(std::vector<KeptEvent> batch) {
  if (batch.empty()) return;
  std::vector<KeptEvent> dropped;  // destroyed outside the lock
  {
    std::lock_guard lock(mu);
    if (stopping) return;
    const Clock::TimePoint now = clock ? clock->now() : Clock::TimePoint();
    for (const KeptEvent& e : batch) {
      head = RevisionOf(e);
      if (max_events == 0) {
        oldest_watchable = head;
        continue;
      }
      history.push_back(e);
      if (clock) published_at.push_back(now);
      bytes += e.bytes;
      Trim(dropped);
    }
    // Without watchers there is nothing to fan out: a watcher that starts later replays what
    // it needs from the history, so the dispatcher is not woken for every commit.
    if (groups.empty()) return;
    inbox.push_back(std::move(batch));
  }
  work_cv.notify_one();
}

Result<std::unique_ptr<WatchHandle>> WatchHub::Watch(std::string_view prefix, int64_t from_revision,
                                                     EventCallback on_events) {
  auto w = std::make_shared<Watcher>();
  w->prefix = std::string(prefix);
  w->callback = std::move(on_events);
  bool wake = false;
  {
    std::lock_guard lock(core_->mu);
    if (core_->stopping) return Status::Unavailable("store is shutting down");
    int64_t from = from_revision == 0 ? core_->head : from_revision;
    if (from < core_->oldest_watchable) {
      return Status::Gone("too old resource version: " + std::to_string(from) + " (" +
                          std::to_string(core_->oldest_watchable) + ")");
    }
    w->id = core_->next_id++;
    auto first =
        std::upper_bound(core_->history.begin(), core_->history.end(), from,
                         [](int64_t rev, const KeptEvent& e) { return rev < RevisionOf(e); });
    for (auto it = first; it != core_->history.end(); ++it) {
      if (std::string_view(it->event->kv.key).starts_with(prefix)) w->pending.push_back(*it);
    }
    // Everything published so far was considered; later fan-out of batches still in the inbox
    // skips it. A `from` beyond the head filters events up to it.
    w->last_queued = std::max(from, core_->head);
    core_->groups[w->prefix].emplace(w->id, w);
    ++core_->watcher_count;
    if (!w->pending.empty()) {
      w->queued = true;
      core_->run_queue.push_back(w);
      wake = true;
    }
  }
  if (wake) core_->work_cv.notify_one();
  return std::unique_ptr<WatchHandle>(new HubWatchHandle(core_, std::move(w)));
}

size_t WatchHub::CapacityFor(size_t objects, size_t max_events, size_t min_events,
                             size_t per_object) {
  if (per_object == 0) return max_events;
  return std::min(max_events, std::max(min_events, per_object * objects));
}

void WatchHub::SetHistoryCapacity(size_t capacity) {
  std::vector<KeptEvent> dropped;  // destroyed outside the lock
  std::lock_guard lock(core_->mu);
  core_->capacity = std::min(capacity, core_->max_events);
  core_->Trim(dropped);
}

void WatchHub::SetHistoryMinAge(std::chrono::nanoseconds min_age, std::shared_ptr<Clock> clock) {
  std::lock_guard lock(core_->mu);
  // Events published before keep no time: they count as old.
  core_->published_at.assign(core_->history.size(), Clock::TimePoint());
  core_->min_age = min_age;
  core_->clock = min_age > std::chrono::nanoseconds(0) ? std::move(clock) : nullptr;
  if (!core_->clock) core_->published_at.clear();
}

int64_t WatchHub::OldestWatchableRevision() const {
  std::lock_guard lock(core_->mu);
  return core_->oldest_watchable;
}

int64_t WatchHub::LastPublishedRevision() const {
  std::lock_guard lock(core_->mu);
  return core_->head;
}

size_t WatchHub::WatcherCount() const {
  std::lock_guard lock(core_->mu);
  return core_->watcher_count;
}

size_t WatchHub::HistoryBytes() const {
  std::lock_guard lock(core_->mu);
  return core_->bytes;
}

size_t WatchHub::HistorySize() const {
  std::lock_guard lock(core_->mu);
  return core_->history.size();
}

}  // namespace tenure::store
