// EtcdStore's writes: Txn compare-and-swap on mod_revision, the first attempt sent with gRPC's
// callback API (no thread waits for it), the writer threads that resend to another member, and
// what a Txn's answer (or its absence) tells the caller.
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
  auto call = std::make_shared<WriteCall>();
  call->op = std::move(op);
  call->done = std::move(done);
  call->deadline = OperationDeadline(call->op.deadline);
  if (Status s = BuildTxn(*call); !s.ok()) call->immediate = std::move(s);
  bool send = false;
  {
    std::lock_guard lock(mu);
    if (stopping) {
      // Below: outside the lock, on the caller's thread (the store is going away).
    } else if (call->immediate) {
      // Bad input is answered on a writer thread too: callbacks never run on the caller's.
      queue.push_back(std::move(*call));
      cv.notify_one();
      return;
    } else if (sending < std::max<size_t>(1, options.max_writes_in_flight)) {
      ++sending;
      send = true;
    } else {
      waiting_to_send.push_back(call);
      return;
    }
  }
  if (send) {
    SendAsync(std::move(call));
    return;
  }
  call->done(Status::Unavailable("store is shutting down"));
}

void EtcdStore::Impl::SendAsync(std::shared_ptr<WriteCall> call) {
  // One slot is held; a write that cannot go out now hands it to the next waiting one (a loop,
  // not a recursion: the waiting list has no bound).
  while (call) {
    if (SysClock::now() >= call->deadline) {
      // Waited past its deadline in the queue: never sent.
      Finish(*call, Status::Timeout("etcd: the write's deadline passed before it could be sent "
                                    "(the write was not applied)"));
      call = NextToSend();
      continue;
    }
    int idx = PickReady(/*avoid_suspects=*/true);
    if (idx < 0) {
      // No member connected now: a writer thread waits for one until the write's deadline.
      {
        std::lock_guard lock(mu);
        queue.push_back(std::move(*call));
        cv.notify_one();
      }
      call = NextToSend();
      continue;
    }
    const bool resendable = endpoints.size() > 1 && Resendable(call->op);
    call->endpoint = idx;
    call->attempts = 1;
    call->context = std::make_unique<grpc::ClientContext>();
    call->context->set_deadline(resendable ? AttemptDeadline(call->deadline, 1) : call->deadline);
    RequireLeader(*call->context);
    WriteCall& c = *call;
    handed_to_grpc.fetch_add(1, std::memory_order_release);
    endpoints[static_cast<size_t>(idx)].kv->async()->Txn(
        c.context.get(), &c.request, &c.response,
        [this, call = std::move(call)](grpc::Status s) mutable {
          AsyncAttemptEnded(std::move(call), s);
        });
    return;
  }
}

void EtcdStore::Impl::AsyncAttemptEnded(std::shared_ptr<WriteCall> call, const grpc::Status& s) {
  (void)handed_to_grpc.load(std::memory_order_acquire);
  std::optional<Result<KeyValue>> result;
  if (s.ok()) {
    result = Interpret(*call);
  } else {
    result = AfterFailedAttempt(*call, static_cast<size_t>(call->endpoint), s,
                                call->context->deadline());
  }
  if (!result && IsStopping()) {
    result = FromGrpc(s, "txn", !RejectedWithoutApplying(s) || !call->cut_off_endpoint.empty());
  }
  if (result) {
    Finish(*call, *std::move(result));
  } else {
    std::lock_guard lock(mu);
    queue.push_back(std::move(*call));
    cv.notify_one();
  }
  // Whatever the caller's callback held goes before the slot does: Shutdown waits for the slots.
  call.reset();
  if (auto next = NextToSend()) SendAsync(std::move(next));
}

std::shared_ptr<EtcdStore::Impl::WriteCall> EtcdStore::Impl::NextToSend() {
  std::lock_guard lock(mu);
  if (!stopping && !waiting_to_send.empty()) {
    auto next = std::move(waiting_to_send.front());
    waiting_to_send.pop_front();
    return next;  // takes over the slot
  }
  --sending;
  sent_cv.notify_all();
  if (stopping && sending == 0) cv.notify_all();  // writers waiting to end
  return nullptr;
}

void EtcdStore::Impl::Finish(WriteCall& call, Result<KeyValue> result) {
  if (result.ok()) Remember(*result, call.op.kind == WriteOp::Kind::kDelete);
  // The callback, and whatever it holds, ends here and not with the WriteCall.
  WriteCallback done = std::move(call.done);
  done(std::move(result));
}

// A writer thread: resends one Txn at a time with the blocking API (so that all the Txn's data
// stays on this thread), until the store stops and no asynchronous attempt is left; writes
// still queued then fail unsent.
void EtcdStore::Impl::RunWriter() {
  pthread_setname_np(pthread_self(), "etcd-writer");
  while (true) {
    WriteCall call;
    {
      std::unique_lock lock(mu);
      // Asynchronous attempts still running may queue a resend: stay until they ended.
      cv.wait(lock, [&] { return (stopping && sending == 0) || !queue.empty(); });
      if (queue.empty()) return;
      call = std::move(queue.front());
      queue.pop_front();
      if (stopping && !call.immediate) {
        call.immediate = call.cut_off_endpoint.empty()
                             ? Status::Unavailable("store is shutting down (not applied)")
                             : Status::Timeout("etcd txn: an attempt on " + call.cut_off_endpoint +
                                               " got no answer and the store shut down before "
                                               "resending it (the write may or may not have "
                                               "been applied)");
      }
    }
    Finish(call, call.immediate ? Result<KeyValue>(*call.immediate) : Send(call));
  }
}

std::optional<Result<KeyValue>> EtcdStore::Impl::AfterFailedAttempt(
    WriteCall& call, size_t idx, const grpc::Status& s, SysClock::time_point attempt_deadline) {
  AttemptFailed(idx, s, attempt_deadline < call.deadline);
  const bool resendable = endpoints.size() > 1 && Resendable(call.op);
  bool unsent = RejectedWithoutApplying(s);
  bool cut_off = !unsent && resendable &&
                 (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
                  s.error_code() == grpc::StatusCode::UNAVAILABLE);
  if ((!unsent && !cut_off) || SysClock::now() >= call.deadline) {
    return FromGrpc(s, "txn", !unsent || !call.cut_off_endpoint.empty());
  }
  if (cut_off) call.cut_off_endpoint = endpoints[idx].url;
  return std::nullopt;
}

// Sends the Txn to a connected endpoint. Resent elsewhere when it was certainly not applied
// (no endpoint was connected, or etcd answered "no leader"), and, when Resendable, after an
// attempt that got no answer within attempt_timeout or lost its connection. Goes on after the
// attempts already made (the asynchronous first one).
Result<KeyValue> EtcdStore::Impl::Send(WriteCall& call) {
  bool resendable = endpoints.size() > 1 && Resendable(call.op);
  for (size_t attempt = call.attempts + 1;; ++attempt) {
    // Every member had its turn in this round: pause before the next.
    if (attempt > 1 && (attempt - 1) % endpoints.size() == 0) PauseBeforeRetry();
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
    call.attempts = attempt;
    grpc::Status s = endpoints[idx].kv->Txn(&context, call.request, &call.response);
    if (s.ok()) return Interpret(call);
    if (auto answer = AfterFailedAttempt(call, static_cast<size_t>(idx), s, attempt_deadline)) {
      return *std::move(answer);
    }
  }
}

}  // namespace tenure::store
