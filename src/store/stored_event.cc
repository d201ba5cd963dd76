// StoredEvent and ValueCompactor: values kept as deltas against a shared base per directory.
#include "store/stored_event.h"

#include <cstdlib>
#include <utility>

namespace tenure::store {

StoredText::StoredText(std::string_view whole)
    : bytes_(whole), size_(static_cast<uint32_t>(whole.size())) {}

StoredText::StoredText(std::shared_ptr<const DeltaBase> base, std::string_view delta, size_t size)
    : base_(std::move(base)), bytes_(delta), size_(static_cast<uint32_t>(size)) {}

std::string StoredText::Text() const {
  if (!base_) return std::string(bytes_.view());
  std::optional<std::string> text = ApplyDelta(bytes_.view(), base_->text());
  // The compactor checked this delta against this base, and both are immutable: a failure is
  // memory damaged, and no answer is better than a wrong one.
  if (!text || text->size() != size_) std::abort();
  return std::move(*text);
}

SharedEvent WholeEvent(Event::Type type, const KeyValue& kv) {
  return std::make_shared<const StoredEvent>(
      StoredEvent{type, kv.key, StoredText(kv.value), kv.create_revision, kv.mod_revision});
}

StoredText ValueCompactor::Compact(std::string_view key, std::string_view value) {
  // A value a few MiB at most (requests are bounded); DeltaBytes keeps 32-bit sizes.
  if (value.size() < kMinSize || value.size() >= UINT32_MAX) return StoredText(value);
  const size_t slash = key.rfind('/');
  const std::string_view directory = key.substr(0, slash == std::string_view::npos ? 0 : slash + 1);
  std::shared_ptr<const DeltaBase> base;
  {
    std::lock_guard lock(mu_);
    auto it = directories_.find(std::string(directory));
    if (it == directories_.end()) {
      if (directories_.size() >= kMaxDirectories) return StoredText(value);
      it = directories_.emplace(std::string(directory), Directory{}).first;
    }
    if (!it->second.base) it->second.base = std::make_shared<const DeltaBase>(std::string(value));
    base = it->second.base;
  }
  std::string delta = MakeDelta(value, *base);
  const bool applies = ApplyDelta(delta, base->text()) == value;
  if (applies && delta.size() <= value.size() / 2) {
    return StoredText(std::move(base), delta, value.size());
  }
  // A value unlike its directory's base: after enough of them, the base is this value.
  std::shared_ptr<const DeltaBase> replaced;  // freed outside the lock
  {
    std::lock_guard lock(mu_);
    auto it = directories_.find(std::string(directory));
    if (it != directories_.end() && it->second.base == base &&
        ++it->second.misses >= kMissesBeforeANewBase) {
      replaced = std::move(it->second.base);
      it->second.base = std::make_shared<const DeltaBase>(std::string(value));
      it->second.misses = 0;
      base = it->second.base;
    }
  }
  if (replaced) {
    delta = MakeDelta(value, *base);
    if (ApplyDelta(delta, base->text()) == value) {
      return StoredText(std::move(base), delta, value.size());
    }
    return StoredText(value);
  }
  if (!applies || delta.size() >= value.size()) return StoredText(value);
  return StoredText(std::move(base), delta, value.size());
}

SharedEvent ValueCompactor::MakeEvent(Event::Type type, const KeyValue& kv) {
  return std::make_shared<const StoredEvent>(
      StoredEvent{type, kv.key, Compact(kv.key, kv.value), kv.create_revision, kv.mod_revision});
}

size_t ValueCompactor::directories() const {
  std::lock_guard lock(mu_);
  return directories_.size();
}

}  // namespace tenure::store
