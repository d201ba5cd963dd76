// RevisionHistory: what each recent write replaced, so that a store that keeps only its current
// state can also read as of an earlier revision (a paginated list resumes at the revision of its
// first page; an Exact list reads an older version), as etcd reads before its compaction.
//
// Every write of the store is recorded, in revision order and without gaps: the write's event and
// the event that gave the key the value it held before (none for a create). Both are shared with
// the store's state and its watch history, not copied. The history keeps the newest `capacity`
// records and no more than `bytes` of them (keys and previous values; the newest record is always
// kept). The state as of
// revision R can be rebuilt while every write after R is still kept: R >= OldestReadable().
// Not thread-safe: the owning store guards it with the lock of its current state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "store/store.h"
#include "store/watch_hub.h"

namespace tenure::store {

class RevisionHistory {
 public:
  // `start_revision`: the store's revision when the history starts empty (readable from then on).
  RevisionHistory(size_t capacity, size_t bytes, int64_t start_revision);

  // The store's next write, `write` (its revision follows the last recorded one), changed a key
  // whose value came from `previous` before it (null: the write created the key).
  void Record(SharedEvent write, SharedEvent previous);

  // Drops the records of writes up to `revision` (the store keeps the watch history's span).
  void DropThrough(int64_t revision);

  // The oldest revision whose state can be rebuilt.
  int64_t OldestReadable() const { return oldest_readable_; }
  size_t Size() const { return records_.size(); }
  size_t Bytes() const { return bytes_; }

  // For each key under `prefix`, and not before `from`, written after `revision`: what it held
  // at `revision` (null: absent), once per key, in key order. Requires revision >=
  // OldestReadable().
  void ForEachChangedSince(
      int64_t revision, std::string_view prefix, std::string_view from,
      const std::function<void(std::string_view key, const KeyValue* then)>& fn) const;

 private:
  struct Change {
    SharedEvent write;
    SharedEvent previous;
    int64_t revision() const { return write->kv.mod_revision; }
  };
  static size_t SizeOf(const Change& r);
  void Trim();

  const size_t capacity_;
  const size_t max_bytes_;
  std::deque<Change> records_;
  size_t bytes_ = 0;
  int64_t oldest_readable_;
};

}  // namespace tenure::store
