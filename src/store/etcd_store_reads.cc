// EtcdStore's reads: Get and List answered from the watch-fed ResidentState once it has reached
// the revision etcd names at the read (one request shared by the reads waiting for it), or from
// etcd when the copy is off, not serving, or late.
#include <algorithm>

#include "store/etcd_store_impl.h"

namespace tenure::store {

bool EtcdStore::Impl::CatchUp(Deadline deadline) {
  if (!resident || !resident->serving()) return false;
  auto revision = barrier.Current(deadline);
  // A failed revision request (possibly another reader's, sent with a shorter deadline): the read
  // goes to etcd, with its own failover, within this reader's time.
  if (!revision.ok()) return false;
  // At most half of the caller's time, so that a read from etcd still has the other half.
  const auto now = std::chrono::steady_clock::now();
  auto until = now + options.watch_cache_wait;
  if (deadline != kNoDeadline) until = std::min(until, now + (deadline - now) / 2);
  return resident->WaitFor(*revision, until);
}

Result<KeyValue> EtcdStore::Impl::GetFromEtcd(std::string_view key, Deadline deadline) {
  auto etcd_key = EtcdKey(key);
  if (!etcd_key.ok()) return etcd_key.status();
  pb::RangeRequest request;
  request.set_key(*etcd_key);
  auto response = Range(std::move(request), deadline);
  if (!response.ok()) return response.status();
  if (response->kvs_size() == 0) return Status::NotFound("key not found: " + std::string(key));
  KeyValue kv = ToKeyValue(response->kvs(0));
  if (!resident) Remember(kv, /*deleted=*/false);  // the copy has it, or will
  return kv;
}

Result<ListResult> EtcdStore::Impl::ListFromEtcd(std::string_view prefix,
                                                 const ListOptions& options, Deadline deadline) {
  ListResult result;
  result.revision = options.revision;
  auto range = EtcdRange(prefix);
  if (!range) {
    if (result.revision != 0) return result;
    auto revision = FetchRevision(0, deadline);
    if (!revision.ok()) return revision.status();
    result.revision = *revision;
    return result;
  }
  std::string start = range->first;
  if (options.start_key > prefix) {
    auto key = EtcdKey(options.start_key);
    if (!key.ok()) return key.status();
    start = std::max(start, *key);
  }
  const int64_t limit = std::max<int64_t>(options.limit, 0);
  // Pages of one snapshot: the first page fixes the revision, the next ones read at it.
  while (true) {
    const int64_t want = limit == 0 ? this->options.list_page_size
                                    : limit - static_cast<int64_t>(result.items.size());
    pb::RangeRequest request;
    request.set_key(start);
    request.set_range_end(range->second);
    request.set_limit(want);
    request.set_revision(result.revision);
    auto response = Range(std::move(request), result.items.empty() ? deadline : kNoDeadline);
    if (!response.ok()) {
      // etcd says "required revision is a future revision" as OutOfRange.
      return response.status();
    }
    if (result.revision == 0) result.revision = response->header().revision();
    for (const mvccpb::KeyValue& kv : response->kvs()) result.items.push_back(ToKeyValue(kv));
    // `count` is every key of the requested range, the returned ones included.
    const int64_t rest = response->count() - response->kvs_size();
    if (limit != 0 && static_cast<int64_t>(result.items.size()) >= limit) {
      result.remaining = rest;
      break;
    }
    if (!response->more() || response->kvs_size() == 0) break;
    start = response->kvs(response->kvs_size() - 1).key() + std::string(1, '\0');
  }
  return result;
}

Result<KeyValue> EtcdStore::Get(std::string_view key) { return GetBefore(key, kNoDeadline); }

Result<KeyValue> EtcdStore::GetBefore(std::string_view key, Deadline caller) {
  if (auto etcd_key = impl_->EtcdKey(key); !etcd_key.ok()) return etcd_key.status();
  const Deadline deadline = impl_->ReadEnd(caller);
  if (!impl_->CatchUp(deadline)) {
    ++impl_->reads_from_etcd;
    return impl_->GetFromEtcd(key, deadline);
  }
  ++impl_->reads_from_cache;
  auto kv = impl_->resident->Get(key);
  if (!kv) return Status::NotFound("key not found: " + std::string(key));
  return *std::move(kv);
}

std::optional<KeyValue> EtcdStore::KnownValue(std::string_view key, int64_t mod_revision) {
  if (auto kv = impl_->known.Lookup(key, mod_revision)) return kv;
  if (!impl_->resident) return std::nullopt;
  // A write of this replica the watch has not brought yet (a deletion too) is newer than the
  // copy's version: that one is no longer the key's.
  if (auto held = impl_->known.Held(key); held && *held > mod_revision) return std::nullopt;
  return impl_->resident->Lookup(key, mod_revision);
}

Result<ListResult> EtcdStore::List(std::string_view prefix, const ListOptions& options) {
  const Deadline deadline = impl_->ReadEnd(kNoDeadline);
  // A list as of a given revision, and the pages after the first, read etcd's snapshot.
  if (options.revision == 0 && impl_->EtcdRange(prefix)) {
    if (options.start_key > prefix) {
      if (auto key = impl_->EtcdKey(options.start_key); !key.ok()) return key.status();
    }
    if (impl_->CatchUp(deadline)) {
      ++impl_->reads_from_cache;
      return impl_->resident->List(prefix, options.start_key, options.limit);
    }
    ++impl_->reads_from_etcd;
  }
  return impl_->ListFromEtcd(prefix, options, deadline);
}

EtcdStore::ReadCounts EtcdStore::reads() const {
  return ReadCounts{impl_->reads_from_cache.load(), impl_->reads_from_etcd.load(),
                    impl_->barrier.requests(), impl_->copy_loads.load()};
}

}  // namespace tenure::store
