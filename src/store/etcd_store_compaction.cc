// EtcdStore's compaction: kube-apiserver's protocol (storage/etcd3/compact.go, compact_rev_key:
// one replica compacts per interval) and EtcdStore::Compact.
#include <pthread.h>

#include "store/etcd_store_impl.h"

namespace tenure::store {

// One round: claims this interval's compaction through the version of compact_rev_key
// (expected `*version`), noting the current revision there; on success compacts `*revision`,
// the one noted an interval ago. Updates both for the next round.
void EtcdStore::Impl::CompactRound(int64_t* version, int64_t* revision) {
  static const std::string kCompactRevKey = "compact_rev_key";
  pb::TxnRequest txn;
  pb::Compare* cmp = txn.add_compare();
  cmp->set_key(kCompactRevKey);
  cmp->set_target(pb::Compare::VERSION);
  cmp->set_result(pb::Compare::EQUAL);
  cmp->set_version(*version);
  pb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(kCompactRevKey);
  put->set_value(std::to_string(*revision));
  AddRange(txn.mutable_failure(), kCompactRevKey);
  pb::TxnResponse response;
  grpc::Status s = Read([&](pb::KV::Stub& kv, grpc::ClientContext& context) {
    return kv.Txn(&context, txn, &response);
  });
  if (!s.ok()) return;  // try again next interval with the same expectations
  int64_t to_compact = *revision;
  *revision = response.header().revision();
  if (!response.succeeded()) {
    // Another replica (or apiserver) compacts this interval; follow its count.
    if (response.responses_size() > 0 && response.responses(0).response_range().kvs_size() > 0) {
      *version = response.responses(0).response_range().kvs(0).version();
    }
    return;
  }
  ++*version;
  if (to_compact == 0) return;  // nothing noted yet: no compaction on bootstrap
  pb::CompactionRequest request;
  request.set_revision(to_compact);
  pb::CompactionResponse ignored;
  (void)Read([&](pb::KV::Stub& kv, grpc::ClientContext& context) {
    return kv.Compact(&context, request, &ignored);
  });
}

void EtcdStore::Impl::RunCompactor(std::stop_token stop) {
  pthread_setname_np(pthread_self(), "etcd-compact");
  int64_t version = 0;
  int64_t revision = 0;
  while (options.clock->SleepFor(options.compaction_interval, stop)) {
    CompactRound(&version, &revision);
  }
}

Status EtcdStore::Compact(int64_t revision) {
  pb::CompactionRequest request;
  request.set_revision(revision);
  request.set_physical(true);
  pb::CompactionResponse response;
  grpc::Status s = impl_->Read([&](pb::KV::Stub& kv, grpc::ClientContext& context) {
    return kv.Compact(&context, request, &response);
  });
  if (!s.ok()) return FromGrpc(s, "compact", false);
  return Status::Ok();
}

}  // namespace tenure::store
