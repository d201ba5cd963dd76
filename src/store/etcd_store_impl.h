// EtcdStore::Impl, private to the etcd store's files: its state and the calls between its parts.
// With them (etcd_store*.cc) the only code that includes gRPC and the generated etcd headers.
//
// Where each part lives:
// - etcd_store.cc: Open (checks, threads), Shutdown and the Store calls on EtcdStore;
// - etcd_store_keys.cc: store keys <-> etcd keys and ranges, etcd records -> KeyValue / Event,
//   the revisions and versions this replica saw;
// - etcd_store_endpoints.cc: endpoint parsing, channels and TLS, choosing a ready member,
//   suspects, attempt and operation deadlines, reads with failover, gRPC failures as Statuses;
// - etcd_store_writes.cc: writes as Txn compare-and-swap, the first attempt sent asynchronously,
//   the writer threads for resends, and how a Txn's answer (or its absence) is reported;
// - etcd_store_watch.cc: the one etcd watch feeding the WatchHub and the ResidentState, progress
//   requests, silence;
// - etcd_store_reads.cc: Get and List, from the ResidentState after a shared revision request,
//   or from etcd;
// - etcd_store_compaction.cc: compaction (kube-apiserver's protocol) and EtcdStore::Compact.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "etcd_rpc.grpc.pb.h"
#include "store/etcd_store.h"
#include "store/known_values.h"
#include "store/resident_state.h"
#include "store/revision_barrier.h"
#include "store/watch_hub.h"

namespace tenure::store {

namespace pb = etcdserverpb;
using SysClock = std::chrono::system_clock;  // gRPC deadlines take system_clock time points

constexpr std::string_view kStoreRoot = "/registry";
constexpr auto kReconnectPause = std::chrono::milliseconds(50);

// Maps a failed etcd call to a Status. `maybe_applied`: a write that was sent.
Status FromGrpc(const grpc::Status& s, std::string_view what, bool maybe_applied);

// etcd's "require leader" metadata (clientv3.WithRequireLeader): a member without a leader
// answers "no leader" at once instead of waiting, so the request fails over to another member.
inline void RequireLeader(grpc::ClientContext& context) {
  context.AddMetadata("hasleader", "true");
}

inline bool RetryableRead(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE ||
         s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

struct EtcdStore::Impl {
  struct Endpoint {
    std::string url;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<pb::KV::Stub> kv;
    std::unique_ptr<pb::Watch::Stub> watch;
    // steady_clock ticks until which the member is avoided (MarkSuspect); shared_ptr keeps
    // Endpoint movable.
    std::shared_ptr<std::atomic<int64_t>> suspect_until = std::make_shared<std::atomic<int64_t>>(0);
  };

  // One write: its Txn and everything needed to interpret, resend or fail it.
  struct WriteCall {
    WriteOp op;
    WriteCallback done;
    SysClock::time_point deadline;
    pb::TxnRequest request;
    pb::TxnResponse response;
    std::optional<Status> immediate;  // a result known before sending (bad input)
    std::string cut_off_endpoint;     // set once an attempt was sent and cut off: resent since
    size_t attempts = 0;              // attempts sent so far
    // The asynchronous first attempt's member and context (the context lives until it ended).
    int endpoint = -1;
    std::unique_ptr<grpc::ClientContext> context;
  };

  explicit Impl(EtcdStoreOptions o)
      : options(std::move(o)),
        known(options.known_values_capacity),
        barrier([this](Deadline deadline) { return FetchRevision(0, deadline); }) {}

  EtcdStoreOptions options;
  std::vector<Endpoint> endpoints;
  std::atomic<size_t> current{0};
  std::atomic<int> watch_endpoint{-1};  // the member the watch reads from, -1: none yet
  std::atomic<int64_t> last_seen_revision{0};
  std::unique_ptr<WatchHub> hub;
  KnownValues known;  // from write results and the watch: lets Update skip its read
  // With reads_from_watch_cache: every key under the prefix, kept by the watch; null without.
  std::unique_ptr<ResidentState> resident;
  RevisionBarrier barrier;  // etcd's revision for the reads answered from `resident`
  std::atomic<uint64_t> reads_from_cache{0};
  std::atomic<uint64_t> reads_from_etcd{0};
  std::atomic<uint64_t> copy_loads{0};  // listings of `resident` (Open, and after each gap)
  // Keys under the prefix as of the last published event (the feeder's after Open), and the
  // hub's capacity for them (WatchHub::CapacityFor).
  int64_t object_count = 0;
  size_t history_capacity = 0;

  std::mutex mu;
  std::condition_variable cv;  // write queue, feeder pause
  bool stopping = false;
  std::deque<WriteCall> queue;  // writes for the writer threads (resends, answers without a Txn)
  // First attempts sent asynchronously (no thread waits for them), at most max_writes_in_flight;
  // more wait in `waiting_to_send`.
  size_t sending = 0;
  std::deque<std::shared_ptr<WriteCall>> waiting_to_send;
  std::condition_variable sent_cv;  // `sending` went down (Shutdown waits for 0)
  // Released before a write is handed to gRPC, acquired in its answer's callback: the order
  // gRPC's own (uninstrumented) synchronization gives, made visible to ThreadSanitizer.
  std::atomic<uint64_t> handed_to_grpc{0};
  std::shared_ptr<grpc::ClientContext> watch_context;  // the feeder's stream, to cancel it
  std::vector<std::thread> writers;
  std::thread feeder;
  std::jthread compactor;

  // --- keys (etcd_store_keys.cc) ------------------------------------------------------------

  Result<std::string> EtcdKey(std::string_view key) const;
  std::string StoreKey(std::string_view etcd_key) const;
  std::optional<std::pair<std::string, std::string>> EtcdRange(std::string_view prefix) const;
  KeyValue ToKeyValue(const mvccpb::KeyValue& kv) const;
  Event ToEvent(const mvccpb::Event& e) const;
  void SawRevision(int64_t revision);
  void Remember(const KeyValue& kv, bool deleted);
  // A watched event, without the resident copy: into `known`. (With the copy, the feeder takes
  // each one out of `known`: the copy holds it now.)
  void Watched(const Event& event);

  // --- endpoints (etcd_store_endpoints.cc) --------------------------------------------------

  Status Connect();
  Result<std::shared_ptr<grpc::ChannelCredentials>> TlsCredentials() const;
  int PickReady(bool avoid_suspects);
  int WaitForReady(SysClock::time_point deadline);
  void MoveAwayFrom(size_t idx);
  void MarkSuspect(size_t idx);
  bool Suspect(size_t idx) const;
  bool IsStopping();
  SysClock::time_point AttemptDeadline(SysClock::time_point deadline, size_t attempt) const;
  SysClock::time_point OperationDeadline(Deadline caller) const;
  // When a whole read ends, its catch-up and reads from etcd included: request_timeout from now,
  // or the caller's deadline when sooner. Its steps share it rather than each starting anew.
  Deadline ReadEnd(Deadline caller) const;
  void AttemptFailed(size_t idx, const grpc::Status& s, bool cut_short);
  void PauseBeforeRetry();

  // A read (idempotent) on any endpoint, failing over until the deadline.
  template <typename Call>
  grpc::Status Read(Call&& call, Deadline caller = kNoDeadline) {
    auto deadline = OperationDeadline(caller);
    grpc::Status last(grpc::StatusCode::UNAVAILABLE, "no etcd endpoint reachable");
    for (size_t attempt = 1;; ++attempt) {
      int idx = WaitForReady(deadline);
      if (idx < 0) return last;
      grpc::ClientContext context;
      auto attempt_deadline = AttemptDeadline(deadline, attempt);
      context.set_deadline(attempt_deadline);
      RequireLeader(context);
      grpc::Status s = call(*endpoints[idx].kv, context);
      if (s.ok() || !RetryableRead(s) || SysClock::now() >= deadline) return s;
      last = s;
      AttemptFailed(static_cast<size_t>(idx), s, attempt_deadline < deadline);
      if (attempt % endpoints.size() == 0) PauseBeforeRetry();
    }
  }

  Result<pb::RangeResponse> Range(pb::RangeRequest request, Deadline caller = kNoDeadline);

  // --- reads (etcd_store_reads.cc) ----------------------------------------------------------

  // Waits until `resident` reflects etcd's revision as of now (one shared request), at most
  // watch_cache_wait and half the time to `deadline`: false when it is not serving, the revision
  // request failed or the copy does not get there in time (the read then goes to etcd).
  bool CatchUp(Deadline deadline);
  Result<KeyValue> GetFromEtcd(std::string_view key, Deadline deadline);
  // A List read from etcd, in pages of one snapshot; the first page by `deadline` (it fixes the
  // snapshot), each later one within its own request_timeout.
  Result<ListResult> ListFromEtcd(std::string_view prefix, const ListOptions& options,
                                  Deadline deadline = kNoDeadline);
  Result<int64_t> FetchRevision(int64_t at = 0, Deadline caller = kNoDeadline);
  // How many keys the prefix holds at `revision`.
  Result<int64_t> FetchObjectCount(int64_t revision);

  // --- writes (etcd_store_writes.cc) --------------------------------------------------------

  static void AddRange(google::protobuf::RepeatedPtrField<pb::RequestOp>* ops,
                       const std::string& key);
  Status BuildTxn(WriteCall& call);
  static bool Resendable(const WriteOp& op);
  Result<KeyValue> InterpretResentFailure(const WriteCall& call, const pb::RangeResponse* range);
  Result<KeyValue> Interpret(const WriteCall& call);
  // What a failed attempt on member `idx` means: the write's answer, or nullopt when it is to be
  // sent again (then cut_off_endpoint is set when the attempt may have been applied).
  std::optional<Result<KeyValue>> AfterFailedAttempt(WriteCall& call, size_t idx,
                                                     const grpc::Status& s,
                                                     SysClock::time_point attempt_deadline);
  void Write(WriteOp op, WriteCallback done);
  // The first attempt, sent with gRPC's callback API: the answer is interpreted on gRPC's
  // thread; a write that must be sent again goes to the writer threads.
  void SendAsync(std::shared_ptr<WriteCall> call);
  void AsyncAttemptEnded(std::shared_ptr<WriteCall> call, const grpc::Status& s);
  // A first attempt's slot is free: the next waiting write, which takes it over, or nullptr
  // (the slot is given back).
  std::shared_ptr<WriteCall> NextToSend();
  void Finish(WriteCall& call, Result<KeyValue> result);
  void RunWriter();
  Result<KeyValue> Send(WriteCall& call);

  // --- watch (etcd_store_watch.cc) ----------------------------------------------------------

  // The hub's capacity for object_count objects.
  size_t HistoryCapacity() const;
  // Counts the objects `events` create and delete, and resizes the hub's history to match.
  void CountObjects(const std::vector<Event>& events);

  void RunFeeder(int64_t start_revision);
  // Lists the prefix at etcd's current revision into `resident`; that revision.
  Result<int64_t> LoadResident();

  // --- compaction (etcd_store_compaction.cc) ------------------------------------------------

  void CompactRound(int64_t* version, int64_t* revision);
  void RunCompactor(std::stop_token stop);

  // --- lifetime (etcd_store.cc) -------------------------------------------------------------

  void Shutdown();
};

}  // namespace tenure::store
