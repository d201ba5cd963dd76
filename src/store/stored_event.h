// StoredEvent: a committed event as a store's state and its watch history keep it, its value
// written against another value of its key's directory (a Lease against another Lease of its
// namespace is a fifth of its bytes); ValueCompactor, which chooses those other values.
//
// Readers get a KeyValue rebuilt from it (ToKeyValue), as they got a copy before: the store
// keeps tens of thousands of values that are read far less often than they are kept.
// Internal to the store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "store/store.h"
#include "store/value_delta.h"

namespace tenure::store {

// A value kept whole, or as a delta against a DeltaBase that other values share.
class StoredText {
 public:
  StoredText() = default;
  explicit StoredText(std::string_view whole);
  // `delta` is MakeDelta(text, *base) and applies (the compactor checks it).
  StoredText(std::shared_ptr<const DeltaBase> base, std::string_view delta, size_t size);

  // The value.
  std::string Text() const;
  // The value without a copy when it is kept whole; otherwise rebuilt into `scratch`.
  std::string_view View(std::string& scratch) const;
  // Its length.
  size_t size() const { return size_; }
  // Whether it is kept as a delta (tests).
  bool compact() const { return base_ != nullptr; }
  // The bytes it keeps beside its base (tests and benchmarks).
  size_t kept_bytes() const { return bytes_.view().size(); }

 private:
  std::shared_ptr<const DeltaBase> base_;  // null: bytes_ holds the value whole
  DeltaBytes bytes_;
  uint32_t size_ = 0;
};

struct StoredEvent {
  Event::Type type = Event::Type::kCreated;
  std::string key;
  StoredText value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;

  KeyValue ToKeyValue() const { return KeyValue{key, value.Text(), create_revision, mod_revision}; }
};

// Shared by a store's state and its watch history, immutable once published.
using SharedEvent = std::shared_ptr<const StoredEvent>;

// The value of `kv` kept whole, as an event of `type`.
SharedEvent WholeEvent(Event::Type type, const KeyValue& kv);

// Writes values against a base per directory of keys (the key up to its last '/': a resource in
// one namespace): the first value stored there, replaced by a newer one when values stop
// resembling it. Thread-safe.
class ValueCompactor {
 public:
  // Values shorter than this are kept whole: a delta saves too little. So are values longer than
  // kMaxSize: a base is kept as long as values are written against it.
  static constexpr size_t kMinSize = 64;
  static constexpr size_t kMaxSize = 16 * 1024;
  // Directories with a base; when all are taken, those whose base no value uses any longer are
  // dropped, and values of further directories are kept whole: a store of many namespaces of a
  // few objects each keeps hardly more than before.
  static constexpr size_t kMaxDirectories = 256;
  // A delta over half its value is a miss; after this many in a row, the missing value becomes
  // the base.
  static constexpr uint32_t kMissesBeforeANewBase = 16;

  StoredText Compact(std::string_view key, std::string_view value);
  // `kv` as an event of `type`, its value compacted.
  SharedEvent MakeEvent(Event::Type type, const KeyValue& kv);

  size_t directories() const;

 private:
  struct Directory {
    std::shared_ptr<const DeltaBase> base;
    uint32_t misses = 0;
  };
  // Makes `fresh` the base of `directory` if its base is still `old` (null: none); the base then.
  std::shared_ptr<const DeltaBase> Install(const std::string& directory,
                                           std::shared_ptr<const DeltaBase> fresh,
                                           const std::shared_ptr<const DeltaBase>& old);
  void SweepUnused();  // under mu_

  mutable std::mutex mu_;
  std::unordered_map<std::string, Directory> directories_;
};

}  // namespace tenure::store
