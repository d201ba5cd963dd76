// WatchHub: the watch history (superseded versions kept as deltas) and the fan-out to watchers
// on one dispatcher thread.
#include "store/watch_hub.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <variant>

#include "store/value_delta.h"

namespace tenure::store {
namespace {

// A published event whole, on its way to watchers (or rebuilt from the history), with what its
// key held before.
struct KeptEvent {
  std::shared_ptr<const Event> event;
  std::shared_ptr<const KeyValue> previous;
};

int64_t RevisionOf(const KeptEvent& e) { return e.event->kv.mod_revision; }

// The event `stored` whole, its value `value` (moved from).
std::shared_ptr<const Event> WholeOf(const StoredEvent& stored, std::string&& value) {
  auto event = std::make_shared<Event>();
  event->type = stored.type;
  event->kv = KeyValue{stored.key, std::move(value), stored.create_revision, stored.mod_revision};
  return event;
}

// The copy a watcher receives: the event with its previous value (an update's only).
Event Delivered(const KeptEvent& e) {
  Event copy = *e.event;
  copy.previous = e.event->type == Event::Type::kUpdated ? e.previous : nullptr;
  return copy;
}

// An entry's previous version once the history no longer keeps that as an entry: its value as a
// delta from the entry's, and its revision.
struct DroppedPrevious {
  DeltaBytes delta;
  int64_t revision = 0;
};

// One event of the history, named by its sequence number (1, 2, ... in publishing order).
// The newest version of a key in the history keeps its event as the store keeps it; once the
// key's next version is published, an older one keeps only its value as a delta against that
// version's (a renewed Lease: tens of bytes instead of hundreds), and its key through that
// version. 80 bytes, six to a block of the history's deque (it was 112, four to a block).
struct HistoryEntry {
  // The event, or once superseded the value from the value of the key's next version.
  std::variant<SharedEvent, DeltaBytes> kept;
  // An update's or deletion's previous version (what the key held before it), once the history
  // no longer keeps it as an entry (on the heap: most entries have theirs in the history).
  std::unique_ptr<DroppedPrevious> dropped_previous;
  int64_t revision = 0;
  int64_t create_revision = 0;
  // How many entries after this one the key's next version is (0: none yet), and how many
  // before it its previous version (0: not in the history). The history holds fewer than 2^32.
  uint32_t next_after = 0;
  uint32_t previous_before = 0;
  // What it counts in the history's bytes: its key and value whole, plus bookkeeping. Not what
  // it holds (a delta is far smaller), but what a replay rebuilds and queues for a watcher: the
  // bound on the bytes keeps that bounded as well.
  uint32_t bytes = 0;
  uint8_t type = 0;         // an Event::Type
  bool prev_known = false;  // whether the previous version is known (as an entry or dropped)

  // The event while this is its key's newest version in the history; null once superseded.
  const SharedEvent* event() const { return std::get_if<SharedEvent>(&kept); }
  // The delta once superseded.
  std::string_view delta() const {
    const DeltaBytes* d = std::get_if<DeltaBytes>(&kept);
    return d != nullptr ? d->view() : std::string_view();
  }
  Event::Type event_type() const { return static_cast<Event::Type>(type); }
};
static_assert(sizeof(HistoryEntry) <= 80);

// The bytes an event counts in the history (HistoryEntry::bytes).
size_t EventBytes(const StoredEvent& e) { return e.key.size() + e.value.size() + 128; }

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
  std::deque<HistoryEntry> history;           // consecutive published events, oldest first
  uint64_t first_seq = 1;                     // the sequence number of history.front()
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
  void Append(std::vector<PublishedEvent> batch);

  // The history's entries by sequence number (requires mu; `seq` kept in the history).
  HistoryEntry& Entry(uint64_t seq) { return history[seq - first_seq]; }
  const HistoryEntry& Entry(uint64_t seq) const { return history[seq - first_seq]; }
  // The sequence number of the event at `revision`, 0 when the history does not keep it.
  uint64_t SeqAt(int64_t revision) const {
    auto it = std::lower_bound(history.begin(), history.end(), revision,
                               [](const HistoryEntry& h, int64_t r) { return h.revision < r; });
    if (it == history.end() || it->revision != revision) return 0;
    return first_seq + static_cast<uint64_t>(it - history.begin());
  }
  // Requires mu. The entries from position `first` on whose key `wanted` accepts, rebuilt as
  // published, oldest first: each event (the history's own for the newest version of its key)
  // and, with `with_previous`, what an update or deletion replaced. One pass from the newest
  // back, each superseded value from its next version's: the work is that of copying the
  // values out. Internal for a damaged history (a delta that does not apply: a bug).
  Result<std::vector<KeptEvent>> Rebuild(size_t first,
                                         const std::function<bool(std::string_view)>& wanted,
                                         bool with_previous) const {
    // By sequence number: the key of a version already seen and, when wanted, its event, for
    // the older version of the key that names it as `next`.
    std::unordered_map<uint64_t, std::pair<std::string_view, std::shared_ptr<const Event>>> newer;
    std::vector<KeptEvent> out;
    const auto damaged = [] { return Status::Internal("the watch history's deltas do not apply"); };
    for (size_t i = history.size(); i-- > first;) {
      const HistoryEntry& h = history[i];
      const uint64_t seq = first_seq + i;
      std::string_view key;
      std::shared_ptr<const Event> event;
      if (const SharedEvent* newest = h.event()) {
        key = (*newest)->key;
        if (wanted(key)) event = WholeOf(**newest, (*newest)->value.Text());
      } else {
        auto next = newer.find(seq + h.next_after);
        if (next == newer.end()) return damaged();
        key = next->second.first;
        if (next->second.second) {
          std::optional<std::string> value = ApplyDelta(h.delta(), next->second.second->kv.value);
          if (!value) return damaged();
          auto rebuilt = std::make_shared<Event>();
          rebuilt->type = h.event_type();
          rebuilt->kv =
              KeyValue{std::string(key), std::move(*value), h.create_revision, h.revision};
          event = std::move(rebuilt);
        }
        newer.erase(next);
      }
      if (h.previous_before != 0) newer.emplace(seq, std::make_pair(key, event));
      if (!event) continue;
      KeptEvent kept{event, nullptr};
      if (with_previous && h.prev_known) {
        // The previous version's delta is against this one: either the entry it names, or kept
        // here once that entry was dropped.
        const HistoryEntry* before =
            h.previous_before != 0 ? &Entry(seq - h.previous_before) : nullptr;
        const DroppedPrevious* dropped = h.dropped_previous.get();
        if (before == nullptr && dropped == nullptr) return damaged();
        std::optional<std::string> value = ApplyDelta(
            before != nullptr ? before->delta() : dropped->delta.view(), event->kv.value);
        if (!value) return damaged();
        kept.previous = std::make_shared<const KeyValue>(
            KeyValue{std::string(key), std::move(*value), h.create_revision,
                     before != nullptr ? before->revision : dropped->revision});
      }
      out.push_back(std::move(kept));
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // Requires mu. Takes a published event into the history: `value` is its value, and
  // `previous_value` the value of `previous` (null when not known). The entry of its key's
  // version before it (when the history keeps it) now keeps only a delta, and the event it held
  // goes to `released`, to be freed outside the lock.
  void Keep(const SharedEvent& event, const std::string& value, const SharedEvent& previous,
            const std::string_view* previous_value, std::vector<SharedEvent>& released) {
    HistoryEntry h;
    h.kept = event;
    h.type = static_cast<uint8_t>(event->type);
    h.revision = event->mod_revision;
    h.create_revision = event->create_revision;
    const uint64_t seq = first_seq + history.size();
    if (previous && previous_value != nullptr && event->type != Event::Type::kCreated) {
      h.prev_known = true;
      const uint64_t prev = SeqAt(previous->mod_revision);
      HistoryEntry* before = prev != 0 ? &Entry(prev) : nullptr;
      const SharedEvent* replaced = before != nullptr ? before->event() : nullptr;
      // The history's version must be the one replaced: the same object (a store that shares
      // its state with the history), or the same key and value.
      if (replaced != nullptr && before->next_after == 0 && (*replaced)->key == event->key &&
          (*replaced == previous || (*replaced)->value.Text() == *previous_value)) {
        released.push_back(std::move(std::get<SharedEvent>(before->kept)));
        before->kept = DeltaBytes(MakeDelta(*previous_value, value));
        before->next_after = static_cast<uint32_t>(seq - prev);
        h.previous_before = static_cast<uint32_t>(seq - prev);
      } else {
        h.dropped_previous = std::make_unique<DroppedPrevious>(
            DroppedPrevious{DeltaBytes(MakeDelta(*previous_value, value)), previous->mod_revision});
      }
    }
    h.bytes = static_cast<uint32_t>(EventBytes(*event));
    bytes += h.bytes;
    history.push_back(std::move(h));
  }

  // Requires mu. Drops the oldest events beyond the bounds (the newest one is always kept).
  void Trim(std::vector<HistoryEntry>& dropped) {
    const Clock::TimePoint now = clock ? clock->now() : Clock::TimePoint();
    auto over = [&] {
      if (history.size() > max_events || (bytes > max_bytes && history.size() > 1)) return true;
      if (history.size() <= capacity) return false;
      return !clock || now - published_at.front() >= min_age;
    };
    while (!history.empty() && over()) {
      HistoryEntry& oldest = history.front();
      oldest_watchable = oldest.revision;
      bytes -= oldest.bytes;
      if (oldest.next_after != 0) {
        // Its delta against the next version is that version's previous value, from its own.
        HistoryEntry& next = Entry(first_seq + oldest.next_after);
        next.previous_before = 0;
        next.dropped_previous = std::make_unique<DroppedPrevious>(
            DroppedPrevious{std::move(std::get<DeltaBytes>(oldest.kept)), oldest.revision});
      }
      dropped.push_back(std::move(oldest));
      history.pop_front();
      ++first_seq;
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
  // Entries name each other by distances of 32 bits.
  core_->max_events = core_->capacity = std::min<size_t>(history_capacity, UINT32_MAX);
  core_->max_bytes = history_bytes;
  core_->oldest_watchable = start_revision;
  core_->head = start_revision;
  core_->dispatcher = std::thread([core = core_.get()] { core->Run(); });
}

WatchHub::~WatchHub() {
  Shutdown();
  // Free memory now; handles may keep the core alive. Destroy outside the lock.
  std::deque<HistoryEntry> history;
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
  std::vector<PublishedEvent> batch;
  batch.reserve(events.size());
  for (Event& e : events) {
    PublishedEvent& p = batch.emplace_back();
    // Kept whole: a backend that publishes events it does not keep has no base to write them
    // against.
    p.event = WholeEvent(e.type, e.kv);
    if (e.previous) p.previous = WholeEvent(Event::Type::kUpdated, *e.previous);
    p.value = std::move(e.kv.value);
  }
  core_->Append(std::move(batch));
}

void WatchHub::Publish(std::vector<PublishedEvent> events) { core_->Append(std::move(events)); }

void WatchHub::Core::Append(std::vector<PublishedEvent> batch) {
  if (batch.empty()) return;
  // The values whole, rebuilt outside the lock where the publisher did not hand them over; a
  // previous value kept whole is read in place (a 1 MiB ConfigMap is not copied for it).
  struct Whole {
    std::string value;
    std::optional<std::string_view> previous;
    std::string previous_rebuilt;
  };
  std::vector<Whole> whole(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    PublishedEvent& p = batch[i];
    whole[i].value = p.value ? std::move(*p.value) : p.event->value.Text();
    if (p.previous && p.event->type != Event::Type::kCreated) {
      whole[i].previous = p.previous->value.View(whole[i].previous_rebuilt);
    }
  }
  std::vector<HistoryEntry> dropped;  // destroyed outside the lock
  std::vector<SharedEvent> released;  // superseded versions: freed outside the lock
  {
    std::lock_guard lock(mu);
    if (stopping) return;
    const Clock::TimePoint now = clock ? clock->now() : Clock::TimePoint();
    for (size_t i = 0; i < batch.size(); ++i) {
      const PublishedEvent& p = batch[i];
      head = p.event->mod_revision;
      if (max_events == 0) {
        oldest_watchable = head;
        continue;
      }
      Keep(p.event, whole[i].value, p.previous, whole[i].previous ? &*whole[i].previous : nullptr,
           released);
      if (clock) published_at.push_back(now);
      Trim(dropped);
    }
    // Without watchers there is nothing to fan out: a watcher that starts later replays what
    // it needs from the history, so the dispatcher is not woken for every commit.
    if (groups.empty()) return;
    std::vector<KeptEvent> fanned;
    fanned.reserve(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      const StoredEvent& e = *batch[i].event;
      KeptEvent& kept = fanned.emplace_back();
      kept.event = WholeOf(e, std::move(whole[i].value));
      if (e.type == Event::Type::kUpdated && whole[i].previous) {
        const StoredEvent& before = *batch[i].previous;
        kept.previous = std::make_shared<const KeyValue>(KeyValue{
            e.key, std::string(*whole[i].previous), before.create_revision, before.mod_revision});
      }
    }
    inbox.push_back(std::move(fanned));
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
                         [](int64_t rev, const HistoryEntry& h) { return rev < h.revision; });
    Result<std::vector<KeptEvent>> replayed = core_->Rebuild(
        static_cast<size_t>(first - core_->history.begin()),
        [&](std::string_view key) { return key.starts_with(prefix); }, /*with_previous=*/true);
    if (!replayed.ok()) return replayed.status();
    for (KeptEvent& kept : *replayed) {
      // Watchers receive previous values with updates only (Delivered).
      if (kept.event->type != Event::Type::kUpdated) kept.previous = nullptr;
      w->pending.push_back(std::move(kept));
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
  std::vector<HistoryEntry> dropped;  // destroyed outside the lock
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

Status WatchHub::ForEachChangedSince(
    int64_t revision, std::string_view prefix, std::string_view from,
    const std::function<void(std::string_view key, const KeyValue* then)>& fn) const {
  // What each key held at `revision`, from its first change after it.
  std::map<std::string, std::shared_ptr<const KeyValue>, std::less<>> then;
  {
    std::lock_guard lock(core_->mu);
    if (revision < core_->oldest_watchable) {
      return Status::Gone("too old resource version: " + std::to_string(revision) + " (" +
                          std::to_string(core_->oldest_watchable) + ")");
    }
    const auto& history = core_->history;
    auto first =
        std::upper_bound(history.begin(), history.end(), revision,
                         [](int64_t rev, const HistoryEntry& h) { return rev < h.revision; });
    Result<std::vector<KeptEvent>> changes = core_->Rebuild(
        static_cast<size_t>(first - history.begin()),
        [&](std::string_view key) { return key.starts_with(prefix) && key >= from; },
        /*with_previous=*/true);
    if (!changes.ok()) return changes.status();
    for (KeptEvent& change : *changes) {
      const std::string& key = change.event->kv.key;
      if (then.find(key) != then.end()) continue;  // not the first change after `revision`
      if (change.event->type != Event::Type::kCreated && !change.previous) {
        return Status::Gone("the store no longer keeps what changed after revision " +
                            std::to_string(revision));
      }
      then.emplace(key, std::move(change.previous));  // a create: absent before
    }
  }
  for (const auto& [key, held] : then) fn(key, held.get());
  return Status::Ok();
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
