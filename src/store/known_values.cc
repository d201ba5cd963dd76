// KnownValues: the newest version of each key a store has seen, so updates can skip a read.
#include "store/known_values.h"

namespace tenure::store {

void KnownValues::Note(const KeyValue& kv) {
  std::lock_guard lock(mu_);
  auto it = latest_.find(std::string_view(kv.key));
  if (it == latest_.end()) {
    if (capacity_ == 0) return;
    if (latest_.size() >= capacity_) latest_.erase(latest_.begin());
    latest_.emplace(kv.key, kv);
  } else if (it->second.mod_revision < kv.mod_revision) {
    it->second = kv;
  }
}

void KnownValues::Forget(const std::string& key, int64_t revision) {
  std::lock_guard lock(mu_);
  auto it = latest_.find(std::string_view(key));
  if (it != latest_.end() && it->second.mod_revision < revision) latest_.erase(it);
}

std::optional<KeyValue> KnownValues::Lookup(std::string_view key, int64_t mod_revision) const {
  std::lock_guard lock(mu_);
  auto it = latest_.find(key);
  if (it == latest_.end() || it->second.mod_revision != mod_revision) return std::nullopt;
  return it->second;
}

size_t KnownValues::size() const {
  std::lock_guard lock(mu_);
  return latest_.size();
}

}  // namespace tenure::store
