// EtcdStore's keys and records: store keys <-> etcd keys and ranges, etcd records as KeyValues
// and Events, and the revisions and key versions this replica saw.
#include "store/etcd_store_impl.h"

namespace tenure::store {
namespace {

// etcd's "range end" for a prefix: the prefix with its last byte below 0xff incremented; "\0"
// (to the end of the key space) when there is none.
std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

}  // namespace

Result<std::string> EtcdStore::Impl::EtcdKey(std::string_view key) const {
  if (key.empty()) return Status::BadRequest("key must not be empty");
  if (!key.starts_with(kStoreRoot)) {
    return Status::BadRequest("etcd store: key outside " + std::string(kStoreRoot) + ": " +
                              std::string(key));
  }
  return options.prefix + std::string(key.substr(kStoreRoot.size()));
}

std::string EtcdStore::Impl::StoreKey(std::string_view etcd_key) const {
  return std::string(kStoreRoot) + std::string(etcd_key.substr(options.prefix.size()));
}

// The etcd range holding the store keys under `prefix`; nullopt when none can.
std::optional<std::pair<std::string, std::string>> EtcdStore::Impl::EtcdRange(
    std::string_view prefix) const {
  std::string start;
  if (prefix.starts_with(kStoreRoot)) {
    start = options.prefix + std::string(prefix.substr(kStoreRoot.size()));
  } else if (kStoreRoot.starts_with(prefix)) {
    start = options.prefix;  // every store key is under the root
  } else {
    return std::nullopt;
  }
  if (start.empty()) return std::pair{std::string(1, '\0'), std::string(1, '\0')};
  return std::pair{start, PrefixEnd(start)};
}

KeyValue EtcdStore::Impl::ToKeyValue(const mvccpb::KeyValue& kv) const {
  return KeyValue{StoreKey(kv.key()), kv.value(), kv.create_revision(), kv.mod_revision()};
}

Event EtcdStore::Impl::ToEvent(const mvccpb::Event& e) const {
  Event event;
  event.kv = ToKeyValue(e.kv());
  if (e.type() == mvccpb::Event::DELETE) {
    event.type = Event::Type::kDeleted;
    event.kv.value = e.prev_kv().value();
    event.kv.create_revision = e.prev_kv().create_revision();
  } else {
    event.type = e.kv().version() == 1 ? Event::Type::kCreated : Event::Type::kUpdated;
    // etcd leaves it out when the revision before was compacted away.
    if (event.type == Event::Type::kUpdated && e.has_prev_kv()) {
      event.previous = std::make_shared<const KeyValue>(ToKeyValue(e.prev_kv()));
    }
  }
  return event;
}

void EtcdStore::Impl::SawRevision(int64_t revision) {
  int64_t seen = last_seen_revision.load();
  while (revision > seen && !last_seen_revision.compare_exchange_weak(seen, revision)) {
  }
}

// Takes a version this replica wrote or read into `known`; a deletion's kv carries the delete's
// revision. With the resident copy, a deletion is remembered until the watch brings it, so that
// the copy's older version is not named meanwhile (KnownValue).
void EtcdStore::Impl::Remember(const KeyValue& kv, bool deleted) {
  if (deleted && resident) {
    known.NoteDeleted(kv.key, kv.mod_revision);
  } else if (deleted) {
    known.Forget(kv.key, kv.mod_revision);
  } else {
    known.Note(kv);
  }
  // The watch may have brought it to the copy already (before this write's answer was read).
  if (resident && resident->revision() >= kv.mod_revision) known.Settled(kv.key, kv.mod_revision);
}

void EtcdStore::Impl::Watched(const Event& event) {
  Remember(event.kv, event.type == Event::Type::kDeleted);
}

}  // namespace tenure::store
