// ObjectHeadCache: one read of each delivered value's head, shared by a store's filtered watches.
#include "server/object_head_cache.h"

#include <functional>
#include <memory>

namespace tenure::server {

const api::ObjectHead* ObjectHeadCache::Get(const void* store, const store::KeyValue& kv) {
  const size_t hash = std::hash<std::string>()(kv.key) ^ static_cast<size_t>(kv.mod_revision);
  Slot& slot = slots_[hash % kSlots];
  if (slot.store != store || slot.revision != kv.mod_revision || slot.key != kv.key) {
    slot.store = store;
    slot.revision = kv.mod_revision;
    slot.key = kv.key;
    slot.head = api::ObjectHead();
    slot.readable = api::ReadObjectHead(kv.value, slot.head, /*with_labels=*/true);
  }
  return slot.readable ? &slot.head : nullptr;
}

ObjectHeadCache& ObjectHeadCache::OfThisThread() {
  // On the heap: a thread's stack need not hold it.
  thread_local std::unique_ptr<ObjectHeadCache> cache = std::make_unique<ObjectHeadCache>();
  return *cache;
}

}  // namespace tenure::server
