// KnownValues: the newest version of each key a store has seen, so updates can skip a read.
#include "store/known_values.h"

namespace tenure::store {

void KnownValues::Put(const std::string& key, Entry entry) {
  auto it = latest_.find(std::string_view(key));
  if (it == latest_.end()) {
    if (capacity_ == 0) return;
    if (latest_.size() >= capacity_) latest_.erase(latest_.begin());
    latest_.emplace(key, std::move(entry));
  } else if (it->second.kv.mod_revision < entry.kv.mod_revision) {
    it->second = std::move(entry);
  }
}

void KnownValues::Note(const KeyValue& kv) {
  std::lock_guard lock(mu_);
  Put(kv.key, Entry{kv, false});
}

void KnownValues::Forget(const std::string& key, int64_t revision) {
  std::lock_guard lock(mu_);
  auto it = latest_.find(std::string_view(key));
  if (it != latest_.end() && it->second.kv.mod_revision < revision) latest_.erase(it);
}

void KnownValues::NoteDeleted(const std::string& key, int64_t revision) {
  std::lock_guard lock(mu_);
  Put(key, Entry{KeyValue{key, "", 0, revision}, true});
}

void KnownValues::Settled(const std::string& key, int64_t revision) {
  std::lock_guard lock(mu_);
  auto it = latest_.find(std::string_view(key));
  if (it != latest_.end() && it->second.kv.mod_revision <= revision) latest_.erase(it);
}

std::optional<KeyValue> KnownValues::Lookup(std::string_view key, int64_t mod_revision) const {
  std::lock_guard lock(mu_);
  auto it = latest_.find(key);
  if (it == latest_.end() || it->second.deleted || it->second.kv.mod_revision != mod_revision) {
    return std::nullopt;
  }
  return it->second.kv;
}

std::optional<int64_t> KnownValues::Held(std::string_view key) const {
  std::lock_guard lock(mu_);
  auto it = latest_.find(key);
  if (it == latest_.end()) return std::nullopt;
  return it->second.kv.mod_revision;
}

size_t KnownValues::size() const {
  std::lock_guard lock(mu_);
  return latest_.size();
}

}  // namespace tenure::store
