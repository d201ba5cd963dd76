// KnownValues: the newest version of each key a store has seen go by (its own write results,
// reads and watch), so that it can name a key's value at a given mod_revision without a round trip.
// A store with a watch-fed copy of every key (ResidentState) keeps here only what its copy does
// not hold yet: its own write results until the watch brings them (Settled), deletions included.
// (key, mod_revision) -> value is an immutable fact, so an entry is never wrong, only possibly
// no longer current; whoever acts on it still compares the revision at the backend.
// Thread-safe. Holds one entry per live key seen, up to a capacity; a deleted key's entry is
// dropped (a write result arriving after the watch reported the deletion may bring it back:
// harmless, see above, and bounded by the capacity).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "store/store.h"

namespace tenure::store {

class KnownValues {
 public:
  // At most `capacity` keys are held; a new key beyond that evicts an arbitrary one (the map
  // only saves reads, so losing an entry costs one read later).
  explicit KnownValues(size_t capacity = 100000) : capacity_(capacity) {}

  // Takes in a key's version unless a newer one of that key is already held.
  void Note(const KeyValue& kv);
  // The key was deleted at `revision`: drops what is held from before it.
  void Forget(const std::string& key, int64_t revision);
  // The key was deleted at `revision` and that is to be remembered (for a store whose watch-fed
  // copy may still hold the key: see Held): a marker replaces what is held from before it.
  void NoteDeleted(const std::string& key, int64_t revision);
  // A watch-fed copy now holds the key as of `revision`: what is held of it up to then (a value
  // or a deletion marker) is dropped, so that the copy and this map do not both keep a version.
  void Settled(const std::string& key, int64_t revision);
  // The held value when it is the key's version at exactly `mod_revision`.
  std::optional<KeyValue> Lookup(std::string_view key, int64_t mod_revision) const;
  // The revision of what is held of the key (a value or a deletion), if anything.
  std::optional<int64_t> Held(std::string_view key) const;
  size_t size() const;

 private:
  // Transparent hashing: lookups by string_view without building a string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  const size_t capacity_;
  mutable std::mutex mu_;
  struct Entry {
    KeyValue kv;
    bool deleted = false;  // a marker: deleted at kv.mod_revision
  };
  void Put(const std::string& key, Entry entry);  // mu_ held
  std::unordered_map<std::string, Entry, Hash, std::equal_to<>> latest_;
};

}  // namespace tenure::store
