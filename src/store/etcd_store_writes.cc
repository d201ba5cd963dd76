// EtcdStore's writes: Txn compare-and-swap on mod_revision, the writer threads, resends to
// another member, and what a Txn's answer (or its absence) tells the caller.
#include <pthread.h>

#include "store/etcd_store_impl.h"

namespace tenure::store {
namespace {

// etcd rejects a request before proposing it when the member has no leader: safe to resend.
bool RejectedWithoutApplying(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE &&
         s.error_message().find("no leader") != std::string::npos;
}

}  // namespace

void EtcdStore::Impl::AddRange(google::protobuf::RepeatedPtrField<pb::RequestOp>* ops,
                               const std::string& key) {
  ops->Add()->mutable_request_range()->set_key(key);
}

Status EtcdStore::Impl::BuildTxn(WriteCall& call) {
  auto key = EtcdKey(call.op.key);
  if (!key.ok()) return key.status();
  pb::TxnRequest& txn = call.request;
  pb::Compare* cmp = txn.add_compare();
  cmp->set_key(*key);
  const WriteOp& op = call.op;
  if (op.kind == WriteOp::Kind::kCreate) {
    cmp->set_target(pb::Compare::CREATE);
    cmp->set_result(pb::Compare::EQUAL);
    cmp->set_create_revision(0);
  } else if (op.expected_revision != 0) {
    cmp->set_target(pb::Compare::MOD);
    cmp->set_result(pb::Compare::EQUAL);
    cmp->set_mod_revision(op.expected_revision);
  } else {
    // Unconditional: the key must exist (a missing key compares as all-zero).
    cmp->set_target(pb::Compare::CREATE);
    cmp->set_result(pb::Compare::GREATER);
    cmp->set_create_revision(0);
  }
  if (op.kind == WriteOp::Kind::kDelete) {
    pb::DeleteRangeRequest* del = txn.add_success()->mutable_request_delete_range();
    del->set_key(*key);
    del->set_prev_kv(true);
  } else {
    pb::PutRequest* put = txn.add_success()->mutable_request_put();
    put->set_key(*key);
    put->set_value(op.value);
    put->set_prev_kv(op.kind == WriteOp::Kind::kUpdate);
  }
  // On a failed compare, read the key to tell NotFound from Conflict (and, for a resent
  // write, whether the key holds what it wrote).
  if (op.kind != WriteOp::Kind::kCreate) AddRange(txn.mutable_failure(), *key);
  return Status::Ok();
}

// Whether a write that was sent and then cut off may be sent again elsewhere: only one that
// names the revision it replaces. etcd revisions never repeat, so of all copies of it at most
// one can ever pass the compare, even a copy the cut-off member applies when it wakes up. A
// create (the key may be deleted and absent again) or an unconditional write could apply twice.
bool EtcdStore::Impl::Resendable(const WriteOp& op) {
  return op.kind != WriteOp::Kind::kCreate && op.expected_revision != 0;
}

// A resent write whose compare failed: was the cut-off first attempt applied? When the key
// now holds exactly what we wrote, that cannot be told from "applied" (and the caller's state
// is there), so it is answered as applied, with the key's version. Otherwise nobody can tell
// (someone may have written after our first copy), and the write fails as unknown instead of
// as a Conflict that would invite the caller to apply its change again.
Result<KeyValue> EtcdStore::Impl::InterpretResentFailure(const WriteCall& call,
                                                         const pb::RangeResponse* range) {
  const WriteOp& op = call.op;
  if (op.kind == WriteOp::Kind::kUpdate && range != nullptr && range->kvs_size() > 0 &&
      range->kvs(0).value() == op.value) {
    const mvccpb::KeyValue& now = range->kvs(0);
    return KeyValue{op.key, op.value, now.create_revision(), now.mod_revision()};
  }
  return Status::Timeout("etcd txn: an attempt on " + call.cut_off_endpoint +
                         " got no answer in time and its resend found the key changed (the "
                         "write may or may not have been applied)");
}

Result<KeyValue> EtcdStore::Impl::Interpret(const WriteCall& call) {
  const WriteOp& op = call.op;
  const pb::TxnResponse& r = call.response;
  int64_t revision = r.header().revision();
  SawRevision(revision);
  if (!r.succeeded()) {
    const auto* range = r.responses_size() > 0 ? &r.responses(0).response_range() : nullptr;
    if (!call.cut_off_endpoint.empty()) return InterpretResentFailure(call, range);
    if (op.kind == WriteOp::Kind::kCreate) {
      return Status::AlreadyExists("key already exists: " + op.key);
    }
    if (range == nullptr || range->kvs_size() == 0) {
      return Status::NotFound("key not found: " + op.key);
    }
    return Status::Conflict("revision mismatch for " + op.key + ": expected " +
                            std::to_string(op.expected_revision) + ", current " +
                            std::to_string(range->kvs(0).mod_revision()));
  }
  if (op.kind != WriteOp::Kind::kCreate && r.responses_size() == 0) {
    return Status::Internal("etcd txn: response without the operation's result for " + op.key);
  }
  KeyValue kv{op.key, op.value, revision, revision};
  if (op.kind == WriteOp::Kind::kUpdate) {
    const auto& put = r.responses(0).response_put();
    if (put.has_prev_kv()) kv.create_revision = put.prev_kv().create_revision();
  } else if (op.kind == WriteOp::Kind::kDelete) {
    const auto& del = r.responses(0).response_delete_range();
    if (del.prev_kvs_size() == 0) return Status::NotFound("key not found: " + op.key);
    kv.value = del.prev_kvs(0).value();
    kv.create_revision = del.prev_kvs(0).create_revision();
  }
  return kv;
}

void EtcdStore::Impl::Write(WriteOp op, WriteCallback done) {
  WriteCall call;
  call.op = std::move(op);
  call.done = std::move(done);
  call.deadline = OperationDeadline(call.op.deadline);
  if (Status s = BuildTxn(call); !s.ok()) call.immediate = std::move(s);
  {
    std::lock_guard lock(mu);
    if (!stopping) {
      // Bad input is answered on a writer thread too: callbacks never run on the caller's.
      queue.push_back(std::move(call));
      cv.notify_one();
      return;
    }
  }
  call.done(Status::Unavailable("store is shutting down"));
}

// A writer thread: sends one Txn at a time with the blocking API (so that all the Txn's data
// stays on this thread), until the store stops; writes still queued then fail unsent.
void EtcdStore::Impl::RunWriter() {
  pthread_setname_np(pthread_self(), "etcd-writer");
  while (true) {
    WriteCall call;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty()) return;
      call = std::move(queue.front());
      queue.pop_front();
      if (stopping) call.immediate = Status::Unavailable("store is shutting down (not applied)");
    }
    Result<KeyValue> result = call.immediate ? Result<KeyValue>(*call.immediate) : Send(call);
    if (result.ok()) Remember(*result, call.op.kind == WriteOp::Kind::kDelete);
    call.done(std::move(result));
  }
}

// Sends the Txn to a connected endpoint. Resent elsewhere when it was certainly not applied
// (no endpoint was connected, or etcd answered "no leader"), and, when Resendable, after an
// attempt that got no answer within attempt_timeout or lost its connection.
Result<KeyValue> EtcdStore::Impl::Send(WriteCall& call) {
  bool resendable = endpoints.size() > 1 && Resendable(call.op);
  for (size_t attempt = 1;; ++attempt) {
    int idx = WaitForReady(call.deadline);
    if (idx < 0 || SysClock::now() >= call.deadline) {
      if (!call.cut_off_endpoint.empty()) {
        return Status::Timeout("etcd txn: an attempt on " + call.cut_off_endpoint +
                               " got no answer in time and no member took the resend before "
                               "the write's deadline (the write may or may not have been applied)");
      }
      if (idx >= 0) {
        return Status::Timeout(
            "etcd: the write's deadline passed before it could be sent (the write "
            "was not applied)");
      }
      return Status::Unavailable(
          "etcd: no endpoint reachable before the write's deadline (the write was not "
          "applied)");
    }
    grpc::ClientContext context;
    // A write that cannot be resent keeps all of its time on its one member.
    auto attempt_deadline = resendable ? AttemptDeadline(call.deadline, attempt) : call.deadline;
    context.set_deadline(attempt_deadline);
    RequireLeader(context);
    call.response.Clear();
    grpc::Status s = endpoints[idx].kv->Txn(&context, call.request, &call.response);
    if (s.ok()) return Interpret(call);
    AttemptFailed(static_cast<size_t>(idx), s, attempt_deadline < call.deadline);
    bool unsent = RejectedWithoutApplying(s);
    bool cut_off = !unsent && resendable &&
                   (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
                    s.error_code() == grpc::StatusCode::UNAVAILABLE);
    if ((!unsent && !cut_off) || SysClock::now() >= call.deadline) {
      return FromGrpc(s, "txn", !unsent || !call.cut_off_endpoint.empty());
    }
    if (cut_off) call.cut_off_endpoint = endpoints[idx].url;
    if (attempt % endpoints.size() == 0) PauseBeforeRetry();
  }
}

}  // namespace tenure::store
