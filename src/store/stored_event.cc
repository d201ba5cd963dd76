// StoredEvent and ValueCompactor: values kept as deltas against a shared base per directory.
#include "store/stored_event.h"

#include <cstdlib>
#include <iterator>
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

std::string_view StoredText::View(std::string& scratch) const {
  if (!base_) return bytes_.view();
  scratch = Text();
  return scratch;
}

SharedEvent WholeEvent(Event::Type type, const KeyValue& kv) {
  return std::make_shared<const StoredEvent>(
      StoredEvent{type, kv.key, StoredText(kv.value), kv.create_revision, kv.mod_revision});
}

StoredText ValueCompactor::Compact(std::string_view key, std::string_view value) {
  if (value.size() < kMinSize || value.size() > kMaxSize) return StoredText(value);
  const size_t slash = key.rfind('/');
  const std::string directory(key.substr(0, slash == std::string_view::npos ? 0 : slash + 1));
  std::shared_ptr<const DeltaBase> base;
  {
    std::lock_guard lock(mu_);
    auto it = directories_.find(directory);
    if (it == directories_.end() && directories_.size() >= kMaxDirectories) SweepUnused();
    if (it == directories_.end() && directories_.size() >= kMaxDirectories) {
      return StoredText(value);
    }
    if (it != directories_.end()) base = it->second.base;
  }
  if (!base) {
    // The directory's first value (or the first since its values were all gone) is its base,
    // indexed outside the lock; another thread's may have come first.
    base = Install(directory, std::make_shared<const DeltaBase>(std::string(value)), nullptr);
  }
  std::string delta = MakeDelta(value, *base);
  const bool applies = ApplyDelta(delta, base->text()) == value;
  const bool hit = applies && delta.size() <= value.size() / 2;
  bool replace = false;
  {
    std::lock_guard lock(mu_);
    auto it = directories_.find(directory);
    if (it != directories_.end() && it->second.base == base) {
      // A value unlike its directory's base: after enough of them in a row, the base is this
      // value.
      it->second.misses = hit ? 0 : it->second.misses + 1;
      replace = it->second.misses >= kMissesBeforeANewBase;
    }
  }
  if (replace) {
    base = Install(directory, std::make_shared<const DeltaBase>(std::string(value)), base);
    delta = MakeDelta(value, *base);
    if (ApplyDelta(delta, base->text()) == value && delta.size() < value.size()) {
      return StoredText(std::move(base), delta, value.size());
    }
    return StoredText(value);
  }
  if (!applies || delta.size() >= value.size()) return StoredText(value);
  return StoredText(std::move(base), delta, value.size());
}

std::shared_ptr<const DeltaBase> ValueCompactor::Install(
    const std::string& directory, std::shared_ptr<const DeltaBase> fresh,
    const std::shared_ptr<const DeltaBase>& old) {
  std::shared_ptr<const DeltaBase> replaced;  // freed outside the lock
  std::lock_guard lock(mu_);
  auto it = directories_.find(directory);
  if (it == directories_.end()) {
    if (directories_.size() >= kMaxDirectories) return fresh;  // filled meanwhile: not kept
    it = directories_.emplace(directory, Directory{}).first;
  }
  if (it->second.base == old) {
    replaced = std::move(it->second.base);
    it->second.base = std::move(fresh);
    it->second.misses = 0;
  }
  return it->second.base;
}

void ValueCompactor::SweepUnused() {
  // Under mu_, where bases are handed out: a base only its directory holds has no value written
  // against it, and none being written.
  for (auto it = directories_.begin(); it != directories_.end();) {
    it = it->second.base.use_count() <= 1 ? directories_.erase(it) : std::next(it);
  }
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
