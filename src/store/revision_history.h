// RevisionHistory: what each recent write replaced, so that a store that keeps only its current
// state can also read as of an earlier revision (a paginated list resumes at the revision of its
// first page; an Exact list reads an older version), as etcd reads before its compaction.
//
// Every write of the store is recorded, in revision order and without gaps: the key and the value
// it held before (none for a create). The history keeps the newest `capacity` records and no more
// than `bytes` of them (keys and values; the newest record is always kept). The state as of
// revision R can be rebuilt while every write after R is still kept: R >= OldestReadable().
// Not thread-safe: the owning store guards it with the lock of its current state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "store/store.h"

namespace tenure::store {

class RevisionHistory {
 public:
  // `start_revision`: the store's revision when the history starts empty (readable from then on).
  RevisionHistory(size_t capacity, size_t bytes, int64_t start_revision);

  // The write at `revision` (the store's next revision) changed `key`, which held `previous`
  // before it (nullopt: the write created it).
  void Record(int64_t revision, std::string key, std::optional<KeyValue> previous);

  // The oldest revision whose state can be rebuilt.
  int64_t OldestReadable() const { return oldest_readable_; }
  size_t Size() const { return records_.size(); }
  size_t Bytes() const { return bytes_; }

  // For each key under `prefix`, and not before `from`, written after `revision`: what it held
  // at `revision` (nullopt: absent), once per key, in key order. Requires revision >=
  // OldestReadable().
  void ForEachChangedSince(
      int64_t revision, std::string_view prefix, std::string_view from,
      const std::function<void(const std::string& key, const std::optional<KeyValue>& then)>& fn)
      const;

 private:
  struct Change {
    int64_t revision = 0;
    std::string key;
    std::optional<KeyValue> previous;
  };
  static size_t SizeOf(const Change& r);

  const size_t capacity_;
  const size_t max_bytes_;
  std::deque<Change> records_;
  size_t bytes_ = 0;
  int64_t oldest_readable_;
};

}  // namespace tenure::store
