// ObjectHeadCache: the heads (name, namespace, labels) of the values a store's watch delivered
// lately, each read once. Every watch with a selector decides each event from the event's head
// and from the head of the value it replaced; with several such watches on one store, each
// would otherwise read the same metadata again (the managedFields included, which the read must
// pass through). A value is named by its store, key and revision, which no other value shares.
// Not thread-safe: one per thread. Each watch hub delivers its store's events on a thread of
// its own that ends with the store, so a store's address names one store for as long as the
// thread's cache lives.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/object_head.h"
#include "store/store.h"

namespace tenure::server {

class ObjectHeadCache {
 public:
  // The head of `kv`, a value of `store`, with its labels; nullptr when its text has no head
  // to read (not a JSON object). Valid until the next call.
  const api::ObjectHead* Get(const void* store, const store::KeyValue& kv);

  // The cache of the calling thread.
  static ObjectHeadCache& OfThisThread();

 private:
  struct Slot {
    const void* store = nullptr;
    int64_t revision = 0;
    std::string key;
    bool readable = false;
    api::ObjectHead head;
  };
  static constexpr size_t kSlots = 512;  // more than the watchers of one event look back
  std::array<Slot, kSlots> slots_;
};

}  // namespace tenure::server
