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
  // The key twice (the change's and the previous value's) plus a fixed overhead per record.
  return sizeof(Change) + 2 * c.key.size() + (c.previous ? c.previous->value.size() : 0);
}

void RevisionHistory::Record(int64_t revision, std::string key, std::optional<KeyValue> previous) {
  Change change{revision, std::move(key), std::move(previous)};
  bytes_ += SizeOf(change);
  records_.push_back(std::move(change));
  // Dropping the write at revision D leaves the states from D on readable.
  while (records_.size() > 1 && (records_.size() > capacity_ || bytes_ > max_bytes_)) {
    bytes_ -= SizeOf(records_.front());
    oldest_readable_ = records_.front().revision;
    records_.pop_front();
  }
}

void RevisionHistory::ForEachChangedSince(
    int64_t revision, std::string_view prefix, std::string_view from,
    const std::function<void(const std::string& key, const std::optional<KeyValue>& then)>& fn)
    const {
  // The earliest write after `revision` to a key tells what the key held at `revision`: walk
  // back from the newest, so that the earliest one is seen last and wins.
  std::map<std::string_view, const std::optional<KeyValue>*> then;
  for (auto it = records_.rbegin(); it != records_.rend() && it->revision > revision; ++it) {
    const std::string_view key = it->key;
    if (!key.starts_with(prefix) || key < from) continue;
    then[key] = &it->previous;
  }
  for (const auto& [key, previous] : then) {
    fn(std::string(key), *previous);
  }
}

}  // namespace tenure::store
