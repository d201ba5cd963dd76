// WatchHub: the watch history and watcher fan-out shared by every Store backend.
//
// A backend feeds the hub with committed events (Publish), in revision order, once they are
// visible to readers. The hub keeps the most recent `history_capacity` events in memory, and no
// more of them than fit in `history_bytes` (keys and values; the newest event is always kept).
// The newest version of each key in the history is the published event itself (shared with the
// backend's state); an older version keeps only its differences from the key's next version
// (value_delta.h), and is rebuilt when a watch replays it. The hub
// serves Watch(prefix, from): it replays the kept events with revision > from under prefix and
// then delivers live ones, without gap or duplicate. A watch from a revision whose successors
// were already dropped fails with Gone ("too old resource version: FROM (OLDEST)").
//
// Threads: Publish and Watch only append to queues; one dispatcher thread owned by the hub runs
// every event callback, never holding a hub lock, so a slow watcher delays other watchers but
// never the publisher. Each watcher receives its events in revision order, batched.
// Callback rules: an event callback may call Get/List/CurrentRevision/Write/Watch on the store
// and may destroy any WatchHandle (its own included). It must not block: in particular it must
// not call Store::WriteSync and must not destroy the store or the hub.
// Destroying a WatchHandle (from any thread) guarantees its callback is not running and will not
// run again once the destructor returns; from inside its own callback, it guarantees no further
// call. Handles may outlive the hub: they just become inert.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"
#include "store/stored_event.h"
#include "tenure/clock.h"
#include "tenure/status.h"

namespace tenure::store {

// A committed event as the store keeps it (shared with the store's state), with the version its
// key held before it as the store kept that (null for a create, or when the backend no longer
// knows it), and its value whole when the publisher has it at hand (the history and the watchers
// need it whole once; otherwise it is rebuilt). A deletion's previous version is optional: the
// history uses it (its own version before the deletion then keeps only a delta), watchers
// receive previous values with updates only.
struct PublishedEvent {
  SharedEvent event;
  SharedEvent previous;
  std::optional<std::string> value;
};

class WatchHub {
 public:
  // `start_revision` is the store revision when the hub starts with an empty history: watches
  // from it or later succeed, older ones are Gone.
  WatchHub(size_t history_capacity, int64_t start_revision,
           size_t history_bytes = kDefaultHistoryBytes);
  // 15,000 updates of a 110 KB ConfigMap must not keep 1.7 GB: the history holds this much.
  static constexpr size_t kDefaultHistoryBytes = size_t{256} << 20;
  // Shutdown(), then frees the history.
  ~WatchHub();

  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Stops the dispatcher (undelivered events are dropped) and joins it; later Publish calls are
  // ignored and Watch fails with ServiceUnavailable. Idempotent. Must not be called from an event
  // callback.
  void Shutdown();

  // Appends committed events. Revisions must be strictly increasing across calls. Cheap (O(events)
  // under one lock, plus a delta of each update's previous version): fan-out to watchers happens
  // on the dispatcher thread. An update's `previous` is set again on each copy delivered; the
  // history keeps it as the entry of that version, or as a delta when it has no such entry.
  void Publish(std::vector<Event> events);
  // The same, for events the caller keeps too (shared, not copied: the history holds the newest
  // version of each key).
  void Publish(std::vector<PublishedEvent> events);

  // Watches keys starting with `prefix` with revisions > from_revision; 0 means "from the last
  // published revision". Fails with Gone when from_revision < OldestWatchableRevision(), with
  // ServiceUnavailable after shutdown. The callback never runs on the calling thread.
  Result<std::unique_ptr<WatchHandle>> Watch(std::string_view prefix, int64_t from_revision,
                                             EventCallback on_events);

  // The history a store of `objects` objects keeps: at most `max_events`, and beyond
  // `min_events` no more than `per_object` per object (0: no such bound). A watcher further
  // behind relists, which then costs no more than replaying would (a listing is one copy of each
  // object).
  static size_t CapacityFor(size_t objects, size_t max_events, size_t min_events,
                            size_t per_object);

  // Keeps at most `capacity` events from now on (the store bounds its history by its size),
  // within the constructor's ceiling; older ones are dropped at once, except those younger than
  // the minimum age.
  void SetHistoryCapacity(size_t capacity);
  // Events published less than `min_age` ago (by `clock`) stay beyond SetHistoryCapacity's
  // bound, not beyond the ceiling or the bytes: a client that lists and then watches from the
  // listing's revision within that time never finds it gone, however fast the store is written
  // (otherwise it could relist forever). Zero: no minimum age.
  void SetHistoryMinAge(std::chrono::nanoseconds min_age, std::shared_ptr<Clock> clock);

  // For each key under `prefix`, and not before `from`, written after `revision`: what it held
  // at `revision` (null: absent), once per key, in key order; with the current state this gives
  // the state as of `revision` (a paginated list resumes at its first page's revision). Gone when
  // revision < OldestWatchableRevision() or when a previous value is not known (a backend that
  // no longer had it); Internal for a damaged history. `fn` runs without the hub's lock.
  Status ForEachChangedSince(
      int64_t revision, std::string_view prefix, std::string_view from,
      const std::function<void(std::string_view key, const KeyValue* then)>& fn) const;

  // The smallest from_revision a Watch accepts.
  int64_t OldestWatchableRevision() const;
  // The revision of the last published event (or start_revision).
  int64_t LastPublishedRevision() const;
  size_t WatcherCount() const;
  size_t HistorySize() const;
  size_t HistoryBytes() const;

  struct Core;  // shared with handles so they can outlive the hub

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace tenure::store
