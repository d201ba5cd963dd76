// RevisionHistory: the previous values of recent writes, and the state of a key range rebuilt as
// of an earlier revision from them.
#include "store/revision_history.h"

#include <algorithm>
#include <map>

namespace tenure::store {

RevisionHistory::RevisionHistory(size_t capacity, size_t bytes, int64_t start_revision)
    : capacity_(std::max<size_t>(capacity, 1)),
      max_bytes_(bytes),
      oldest_readable_(start_revision) {}

size_t RevisionHistory::SizeOf(const Change& c) {
  // What the record keeps alive: the key and the previous value (shared with the store's state
  // and watch history, so this over-counts the memory, never under-counts it), plus overhead.
  return sizeof(Change) + 2 * c.write->kv.key.size() +
         (c.previous ? c.previous->kv.value.size() : 0);
}

void RevisionHistory::Record(SharedEvent write, SharedEvent previous) {
  Change change{std::move(write), std::move(previous)};
  bytes_ += SizeOf(change);
  records_.push_back(std::move(change));
  Trim();
}

void RevisionHistory::DropThrough(int64_t revision) {
  while (!records_.empty() && records_.front().revision() <= revision) {
    bytes_ -= SizeOf(records_.front());
    records_.pop_front();
  }
  oldest_readable_ = std::max(oldest_readable_, revision);
}

void RevisionHistory::Trim() {
  // Dropping the write at revision D leaves the states from D on readable.
  while (records_.size() > 1 && (records_.size() > capacity_ || bytes_ > max_bytes_)) {
    bytes_ -= SizeOf(records_.front());
    oldest_readable_ = records_.front().revision();
    records_.pop_front();
  }
}

void RevisionHistory::ForEachChangedSince(
    int64_t revision, std::string_view prefix, std::string_view from,
    const std::function<void(std::string_view key, const KeyValue* then)>& fn) const {
  // The earliest write after `revision` to a key tells what the key held at `revision`: walk
  // back from the newest, so that the earliest one is seen last and wins.
  std::map<std::string_view, const KeyValue*> then;
  for (auto it = records_.rbegin(); it != records_.rend() && it->revision() > revision; ++it) {
    const std::string_view key = it->write->kv.key;
    if (!key.starts_with(prefix) || key < from) continue;
    then[key] = it->previous ? &it->previous->kv : nullptr;
  }
  for (const auto& [key, previous] : then) fn(key, previous);
}

}  // namespace tenure::store
