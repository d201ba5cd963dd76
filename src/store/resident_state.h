// ResidentState: a replica's copy of every key under its store's prefix, kept current by the
// store's watch, and the revision of the backend it reflects. A consistent read is answered from
// it once it has reached the revision the backend names at the read (WaitFor), as kube-apiserver
// answers consistent reads from its watch cache (KEP-2340).
//
// The revision moves with the watch alone: Apply's `through` is the revision of the last event of
// a watch response, and the watch must cover every key of the backend (keys outside the prefix
// included), so that every revision the backend names is eventually reached. Progress reports are
// not used: etcd before 3.4.31 / 3.5.13 may send one ahead of events it has not sent yet.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"
#include "store/watch_hub.h"

namespace tenure::store {

class ResidentState {
 public:
  // Replaces the copy with a listing of the prefix taken at `revision`, and serves from it.
  void Reset(std::vector<KeyValue> items, int64_t revision);
  // Stops serving until the next Reset (the watch skipped events: compacted past its resume
  // point). Waiting readers give up at once.
  void Invalidate();
  // Takes in watched events of the prefix (in revision order); every revision up to `through`
  // has now been seen. Events at or below the current revision are already in (a listing taken
  // after them) and are skipped. Returns the events for the watch hub: the copy's own (the
  // history and the copy share one of each value), each update with its previous version (the
  // one the copy held, when it is the one `previous` names), their values moved from `events`.
  std::vector<PublishedEvent> Apply(std::vector<Event> events, int64_t through);

  // Waits until the copy serves and reflects `revision` or later, at most until `until`; false
  // when it does not by then.
  bool WaitFor(int64_t revision, std::chrono::steady_clock::time_point until);
  bool serving() const;
  int64_t revision() const;

  // The key's current value in the copy (call after WaitFor).
  std::optional<KeyValue> Get(std::string_view key) const;
  // Keys under `prefix` from `start_key` on, at most `limit` (0: all; the rest is counted in
  // `remaining`), as of revision().
  ListResult List(std::string_view prefix, std::string_view start_key, int64_t limit) const;
  // The key's value when its version in the copy is `mod_revision`.
  std::optional<KeyValue> Lookup(std::string_view key, int64_t mod_revision) const;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  bool serving_ = false;
  int64_t revision_ = 0;
  // Keyed by a view of the event's own key: one copy of each key and value.
  std::map<std::string_view, SharedEvent, std::less<>> data_;
  ValueCompactor compactor_;  // the values of data_ and of the history
};

}  // namespace tenure::store
