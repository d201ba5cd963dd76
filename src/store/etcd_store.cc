// EtcdStore: the Store contract on an etcd v3 cluster over gRPC: failover, one shared watch.
#include "store/etcd_store.h"

#include <grpcpp/grpcpp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#include "etcd_rpc.grpc.pb.h"
#include "store/known_values.h"
#include "store/watch_hub.h"

namespace tenure::store {
namespace {

namespace pb = etcdserverpb;
using SysClock = std::chrono::system_clock;  // gRPC deadlines take system_clock time points

constexpr std::string_view kStoreRoot = "/registry";
constexpr auto kReconnectPause = std::chrono::milliseconds(50);
// How long a request waits for another member to become ready before it takes a suspect one.
constexpr auto kSuspectPatience = std::chrono::milliseconds(200);

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

Result<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::BadRequest(std::string("etcd store: cannot read ") + what + " " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct ParsedEndpoint {
  bool tls = false;
  std::string target;  // host:port
};

Result<ParsedEndpoint> ParseEndpoint(std::string_view url) {
  ParsedEndpoint out;
  std::string_view rest = url;
  if (rest.starts_with("https://")) {
    out.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.find("://") != std::string_view::npos) {
    return Status::BadRequest("etcd endpoint " + std::string(url) +
                              ": scheme must be http or https");
  }
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  size_t colon = rest.rfind(':');
  if (rest.empty() || colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
      rest.find('/') != std::string_view::npos ||
      rest.substr(colon + 1).find_first_not_of("0123456789") != std::string_view::npos) {
    return Status::BadRequest("etcd endpoint " + std::string(url) +
                              ": expected http(s)://HOST:PORT");
  }
  out.target = std::string(rest);
  return out;
}

// Maps a failed etcd call to a Status. `maybe_applied`: a write that was sent.
Status FromGrpc(const grpc::Status& s, std::string_view what, bool maybe_applied) {
  std::string message = "etcd " + std::string(what) + ": " + s.error_message();
  if (maybe_applied) message += " (the write may or may not have been applied)";
  switch (s.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED:
      return Status::Unavailable(std::move(message));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Status::Timeout(std::move(message));
    case grpc::StatusCode::OUT_OF_RANGE:
      if (s.error_message().find("compacted") != std::string::npos) {
        return Status::Gone("too old resource version: " + message);
      }
      return Status::BadRequest(std::move(message));
    case grpc::StatusCode::INVALID_ARGUMENT:
      return Status::BadRequest(std::move(message));
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return Status(Reason::kTooManyRequests, std::move(message));
    default:
      return Status::Internal(std::move(message));
  }
}

// etcd rejects a request before proposing it when the member has no leader: safe to resend.
bool RejectedWithoutApplying(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE &&
         s.error_message().find("no leader") != std::string::npos;
}

// etcd's "require leader" metadata (clientv3.WithRequireLeader): a member without a leader
// answers "no leader" at once instead of waiting, so the request fails over to another member.
void RequireLeader(grpc::ClientContext& context) { context.AddMetadata("hasleader", "true"); }

bool RetryableRead(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE ||
         s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

}  // namespace

Result<std::vector<std::string>> ParseEtcdEndpoints(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    if (auto parsed = ParseEndpoint(item); !parsed.ok()) return parsed.status();
    out.emplace_back(item);
  }
  if (out.empty()) return Status::BadRequest("no etcd endpoint given");
  return out;
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
  };

  explicit Impl(EtcdStoreOptions o) : options(std::move(o)), known(options.known_values_capacity) {}

  EtcdStoreOptions options;
  std::vector<Endpoint> endpoints;
  std::atomic<size_t> current{0};
  std::atomic<int> watch_endpoint{-1};  // the member the watch reads from, -1: none yet
  std::atomic<int64_t> last_seen_revision{0};
  std::unique_ptr<WatchHub> hub;
  KnownValues known;  // from write results and the watch: lets Update skip its read

  std::mutex mu;
  std::condition_variable cv;  // write queue, feeder pause
  bool stopping = false;
  std::deque<WriteCall> queue;                         // writes not taken by a writer thread yet
  std::shared_ptr<grpc::ClientContext> watch_context;  // the feeder's stream, to cancel it
  std::vector<std::thread> writers;
  std::thread feeder;
  std::jthread compactor;

  // --- keys ---------------------------------------------------------------------------------

  Result<std::string> EtcdKey(std::string_view key) const {
    if (key.empty()) return Status::BadRequest("key must not be empty");
    if (!key.starts_with(kStoreRoot)) {
      return Status::BadRequest("etcd store: key outside " + std::string(kStoreRoot) + ": " +
                                std::string(key));
    }
    return options.prefix + std::string(key.substr(kStoreRoot.size()));
  }
  std::string StoreKey(std::string_view etcd_key) const {
    return std::string(kStoreRoot) + std::string(etcd_key.substr(options.prefix.size()));
  }
  // The etcd range holding the store keys under `prefix`; nullopt when none can.
  std::optional<std::pair<std::string, std::string>> EtcdRange(std::string_view prefix) const {
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
  KeyValue ToKeyValue(const mvccpb::KeyValue& kv) const {
    return KeyValue{StoreKey(kv.key()), kv.value(), kv.create_revision(), kv.mod_revision()};
  }

  void SawRevision(int64_t revision) {
    int64_t seen = last_seen_revision.load();
    while (revision > seen && !last_seen_revision.compare_exchange_weak(seen, revision)) {
    }
  }

  // --- endpoints ----------------------------------------------------------------------------

  Status Connect() {
    std::shared_ptr<grpc::ChannelCredentials> tls;
    for (const std::string& url : options.endpoints) {
      auto parsed = ParseEndpoint(url);
      if (!parsed.ok()) return parsed.status();
      std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
      if (parsed->tls) {
        if (!tls) {
          auto made = TlsCredentials();
          if (!made.ok()) return made.status();
          tls = *made;
        }
        credentials = tls;
      }
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(-1);
      // Find a restarted member quickly (attempts 100 ms to 1 s apart), and notice a silently
      // dead one (keepalive). gRPC's "min reconnect backoff" is the time one connection attempt
      // (TCP, TLS, HTTP/2 handshake) may take: 5 s, so a slow link or a loaded host still
      // connects; a refused connection fails at once and is retried on the backoff above.
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
      args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 5000);
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
      args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
      args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
      // One connection per endpoint object, not shared with other stores of the process.
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      Endpoint ep;
      ep.url = url;
      ep.channel = grpc::CreateCustomChannel(parsed->target, credentials, args);
      ep.kv = pb::KV::NewStub(ep.channel);
      ep.watch = pb::Watch::NewStub(ep.channel);
      endpoints.push_back(std::move(ep));
    }
    if (endpoints.empty()) return Status::BadRequest("etcd store: no endpoint given");
    return Status::Ok();
  }

  Result<std::shared_ptr<grpc::ChannelCredentials>> TlsCredentials() const {
    grpc::SslCredentialsOptions ssl;
    if (!options.ca_file.empty()) {
      auto ca = ReadFile(options.ca_file, "CA file");
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = *ca;
    }
    if (options.cert_file.empty() != options.key_file.empty()) {
      return Status::BadRequest("etcd store: a client certificate needs both cert and key file");
    }
    if (!options.cert_file.empty()) {
      auto cert = ReadFile(options.cert_file, "certificate file");
      if (!cert.ok()) return cert.status();
      auto key = ReadFile(options.key_file, "key file");
      if (!key.ok()) return key.status();
      ssl.pem_cert_chain = *cert;
      ssl.pem_private_key = *key;
    }
    return grpc::SslCredentials(ssl);
  }

  // An endpoint whose connection is up, preferring the current one; -1 when none. Every idle
  // channel is asked to connect (a channel nobody used for a while goes idle, and must be ready
  // when the current member hangs). `avoid_suspects`: skip members that recently let an attempt
  // run out (a hung member's connection stays READY).
  int PickReady(bool avoid_suspects) {
    size_t n = endpoints.size();
    size_t start = current.load();
    int found = -1;
    bool all_suspect = true;
    for (size_t i = 0; i < n && all_suspect; ++i) all_suspect = Suspect(i);
    if (all_suspect) avoid_suspects = false;
    for (size_t i = 0; i < n; ++i) {
      size_t idx = (start + i) % n;
      bool ready = endpoints[idx].channel->GetState(true) == GRPC_CHANNEL_READY;
      if (found < 0 && ready && !(avoid_suspects && Suspect(idx))) found = static_cast<int>(idx);
    }
    if (found >= 0 && static_cast<size_t>(found) != start)
      current.store(static_cast<size_t>(found));
    return found;
  }

  // Waits until some endpoint is connected, the deadline passes or the store stops. A suspect
  // member is taken only when no other one became ready within kSuspectPatience.
  int WaitForReady(SysClock::time_point deadline) {
    auto patient_until = SysClock::now() + kSuspectPatience;
    while (true) {
      auto now = SysClock::now();
      int idx = PickReady(now < patient_until);
      if (idx >= 0) return idx;
      if (now >= deadline || IsStopping()) return -1;
      auto& channel = endpoints[current.load()].channel;
      channel->WaitForStateChange(channel->GetState(false),
                                  std::min(deadline, now + kReconnectPause));
      // Look at the others next time even when this one keeps flapping.
      current.store((current.load() + 1) % endpoints.size());
    }
  }

  void MoveAwayFrom(size_t idx) {
    size_t expected = idx;
    current.compare_exchange_strong(expected, (idx + 1) % endpoints.size());
  }

  // A member that let an attempt run out is avoided for a while (another ready one is taken
  // first), then trusted again.
  void MarkSuspect(size_t idx) {
    auto until = std::chrono::steady_clock::now() + options.request_timeout;
    endpoints[idx].suspect_until->store(until.time_since_epoch().count());
  }
  bool Suspect(size_t idx) const {
    return std::chrono::steady_clock::now().time_since_epoch().count() <
           endpoints[idx].suspect_until->load();
  }

  bool IsStopping() {
    std::lock_guard lock(mu);
    return stopping;
  }

  // The deadline of attempt number `attempt` (from 1) of an operation that may go to another
  // member afterwards: a member that hangs (paused, or its link black-holed while the
  // connection stays open) must not take the whole request timeout when another one could
  // answer. The last member of the first round, and every later attempt, get all that is left
  // (a slow but healthy cluster still answers a heavy read); so does a single endpoint.
  // Of a short deadline (the caller's) each member not tried yet gets an even share, so that a
  // hung first one leaves time for the others.
  SysClock::time_point AttemptDeadline(SysClock::time_point deadline, size_t attempt) const {
    if (attempt >= endpoints.size()) return deadline;
    auto now = SysClock::now();
    auto share = (deadline - now) / static_cast<int64_t>(endpoints.size() - attempt + 1);
    return std::min(deadline, now + std::min<SysClock::duration>(options.attempt_timeout, share));
  }

  // An operation's deadline: the request timeout, or the caller's deadline when sooner.
  SysClock::time_point OperationDeadline(Deadline caller) const {
    auto now = SysClock::now();
    auto deadline = now + options.request_timeout;
    if (caller == kNoDeadline) return deadline;
    // Compared before adding: a far caller deadline must not overflow the time point.
    auto left = caller - std::chrono::steady_clock::now();
    if (left >= options.request_timeout) return deadline;
    return now + std::chrono::duration_cast<SysClock::duration>(left);
  }

  // After an attempt on endpoint `idx` failed in a way another member may not share.
  // `cut_short`: the attempt had less than the whole operation's time, so a deadline exceeded
  // says the member did not answer within its share (when the operation's own deadline ran out,
  // perhaps a caller's short one, the member may be fine).
  void AttemptFailed(size_t idx, const grpc::Status& s, bool cut_short) {
    if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && cut_short) MarkSuspect(idx);
    MoveAwayFrom(idx);
  }

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

  Result<pb::RangeResponse> Range(pb::RangeRequest request, Deadline caller = kNoDeadline) {
    pb::RangeResponse response;
    grpc::Status s =
        Read([&](pb::KV::Stub& kv,
                 grpc::ClientContext& context) { return kv.Range(&context, request, &response); },
             caller);
    if (!s.ok()) return FromGrpc(s, "range", false);
    SawRevision(response.header().revision());
    return response;
  }

  // The store's revision, by a count-only range (at revision `at` when non-zero: Gone when it
  // was compacted).
  Result<int64_t> FetchRevision(int64_t at = 0) {
    pb::RangeRequest request;
    request.set_key(options.prefix.empty() ? std::string(1, '\0') : options.prefix);
    request.set_limit(1);
    request.set_count_only(true);
    if (at != 0) request.set_revision(at);
    auto response = Range(std::move(request));
    if (!response.ok()) return response.status();
    return response->header().revision();
  }

  // --- writes -------------------------------------------------------------------------------

  static void AddRange(google::protobuf::RepeatedPtrField<pb::RequestOp>* ops,
                       const std::string& key) {
    ops->Add()->mutable_request_range()->set_key(key);
  }

  Status BuildTxn(WriteCall& call) {
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
  static bool Resendable(const WriteOp& op) {
    return op.kind != WriteOp::Kind::kCreate && op.expected_revision != 0;
  }

  // A resent write whose compare failed: was the cut-off first attempt applied? When the key
  // now holds exactly what we wrote, that cannot be told from "applied" (and the caller's state
  // is there), so it is answered as applied, with the key's version. Otherwise nobody can tell
  // (someone may have written after our first copy), and the write fails as unknown instead of
  // as a Conflict that would invite the caller to apply its change again.
  Result<KeyValue> InterpretResentFailure(const WriteCall& call, const pb::RangeResponse* range) {
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

  Result<KeyValue> Interpret(const WriteCall& call) {
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

  void Write(WriteOp op, WriteCallback done) {
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
  void RunWriter() {
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
  Result<KeyValue> Send(WriteCall& call) {
    bool resendable = endpoints.size() > 1 && Resendable(call.op);
    for (size_t attempt = 1;; ++attempt) {
      int idx = WaitForReady(call.deadline);
      if (idx < 0 || SysClock::now() >= call.deadline) {
        if (!call.cut_off_endpoint.empty()) {
          return Status::Timeout(
              "etcd txn: an attempt on " + call.cut_off_endpoint +
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

  // Every member answered "no leader" (an election is running): wait a moment before a new round.
  void PauseBeforeRetry() {
    std::unique_lock lock(mu);
    cv.wait_for(lock, kReconnectPause, [&] { return stopping; });
  }

  // --- watch --------------------------------------------------------------------------------

  using WatchStream = grpc::ClientReaderWriter<pb::WatchRequest, pb::WatchResponse>;

  // Keeps one watch stream honest while it is read: after a quiet spell of a quarter of `limit`
  // it asks etcd for a progress report, and it cancels the stream once nothing at all arrived for
  // `limit`. Writes race only with the reader's Read, which gRPC allows; the owner cancels the
  // context before destroying it, so a Write in progress returns.
  class SilenceWatchdog {
   public:
    SilenceWatchdog(WatchStream& stream, grpc::ClientContext& context,
                    std::chrono::milliseconds limit)
        : stream_(stream), context_(context), limit_(limit), heard_(Now()) {
      thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
    }
    ~SilenceWatchdog() {
      thread_.request_stop();
      cv_.notify_all();
    }
    void Heard() { heard_.store(Now(), std::memory_order_relaxed); }
    bool fired() const { return fired_.load(); }

   private:
    static int64_t Now() { return std::chrono::steady_clock::now().time_since_epoch().count(); }
    void Run(std::stop_token stop) {
      const auto ask_after = std::chrono::nanoseconds(limit_) / 4;
      int64_t asked = 0;  // the silence (heard_) a progress request was already sent for
      std::mutex mu;
      std::unique_lock lock(mu);
      while (!stop.stop_requested()) {
        cv_.wait_for(lock, stop, ask_after / 2, [] { return false; });
        if (stop.stop_requested()) return;
        int64_t heard = heard_.load(std::memory_order_relaxed);
        auto quiet = std::chrono::nanoseconds(Now() - heard);
        if (quiet >= limit_) {
          fired_ = true;
          context_.TryCancel();
          return;
        }
        if (quiet >= ask_after && asked != heard) {
          asked = heard;
          pb::WatchRequest progress;
          progress.mutable_progress_request();
          if (!stream_.Write(progress)) return;  // the stream ended: the reader sees it too
        }
      }
    }

    WatchStream& stream_;
    grpc::ClientContext& context_;
    const std::chrono::milliseconds limit_;
    std::atomic<int64_t> heard_;
    std::atomic<bool> fired_{false};
    std::condition_variable_any cv_;
    std::jthread thread_;  // last: stopped and joined before the members it uses go
  };

  // Feeds the hub from one etcd watch on the whole prefix, reconnecting after failures and
  // resuming after the last published revision.
  void RunFeeder(int64_t start_revision) {
    pthread_setname_np(pthread_self(), "etcd-watch");
    auto range = EtcdRange(kStoreRoot);
    int64_t next = start_revision + 1;
    while (!IsStopping()) {
      int idx = WaitForReady(SysClock::now() + std::chrono::seconds(1));
      if (idx < 0) continue;
      auto context = std::make_shared<grpc::ClientContext>();
      // etcd cancels the watch when its member loses the leader (a partitioned member would
      // otherwise keep the stream open and silent).
      RequireLeader(*context);
      {
        std::lock_guard lock(mu);
        if (stopping) break;
        watch_context = context;
      }
      watch_endpoint.store(idx);
      auto stream = endpoints[idx].watch->Watch(context.get());
      pb::WatchRequest request;
      pb::WatchCreateRequest* create = request.mutable_create_request();
      create->set_key(range->first);
      create->set_range_end(range->second);
      create->set_start_revision(next);
      create->set_prev_kv(true);
      create->set_progress_notify(true);
      pb::WatchResponse response;
      bool silent = false;
      if (stream->Write(request)) {
        SilenceWatchdog watchdog(*stream, *context, options.watch_silence_limit);
        while (stream->Read(&response)) {
          watchdog.Heard();
          SawRevision(response.header().revision());
          if (response.canceled()) {
            if (response.compact_revision() > 0) {
              std::fprintf(stderr,
                           "tenure etcd store: watch resume at revision %lld failed, etcd "
                           "compacted to %lld: watchers miss the events in between\n",
                           static_cast<long long>(next),
                           static_cast<long long>(response.compact_revision()));
              next = response.compact_revision();
            }
            break;
          }
          if (response.events_size() == 0) continue;
          std::vector<Event> events;
          events.reserve(static_cast<size_t>(response.events_size()));
          for (const mvccpb::Event& e : response.events()) {
            events.push_back(ToEvent(e));
            Remember(events.back().kv, events.back().type == Event::Type::kDeleted);
          }
          next = events.back().kv.mod_revision + 1;
          hub->Publish(std::move(events));
        }
        silent = watchdog.fired();
        context->TryCancel();
      }
      context->TryCancel();
      (void)stream->Finish();
      if (silent && !IsStopping()) {
        std::fprintf(stderr,
                     "tenure etcd store: the watch on %s delivered nothing for %lld ms (no event, "
                     "no progress report): resuming it on another member\n",
                     endpoints[idx].url.c_str(),
                     static_cast<long long>(options.watch_silence_limit.count()));
        MarkSuspect(static_cast<size_t>(idx));
      }
      {
        std::unique_lock lock(mu);
        watch_context.reset();
        if (stopping) break;
        MoveAwayFrom(static_cast<size_t>(idx));
        cv.wait_for(lock, kReconnectPause, [&] { return stopping; });
      }
    }
  }

  // Takes a version this replica saw (written, read or watched) into `known`; a deletion's kv
  // carries the delete's revision.
  void Remember(const KeyValue& kv, bool deleted) {
    if (deleted) {
      known.Forget(kv.key, kv.mod_revision);
    } else {
      known.Note(kv);
    }
  }

  Event ToEvent(const mvccpb::Event& e) const {
    Event event;
    event.kv = ToKeyValue(e.kv());
    if (e.type() == mvccpb::Event::DELETE) {
      event.type = Event::Type::kDeleted;
      event.kv.value = e.prev_kv().value();
      event.kv.create_revision = e.prev_kv().create_revision();
    } else {
      event.type = e.kv().version() == 1 ? Event::Type::kCreated : Event::Type::kUpdated;
    }
    return event;
  }

  // --- compaction (kube-apiserver's storage/etcd3/compact.go) ------------------------------------

  // One round: claims this interval's compaction through the version of compact_rev_key
  // (expected `*version`), noting the current revision there; on success compacts `*revision`,
  // the one noted an interval ago. Updates both for the next round.
  void CompactRound(int64_t* version, int64_t* revision) {
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

  void RunCompactor(std::stop_token stop) {
    pthread_setname_np(pthread_self(), "etcd-compact");
    int64_t version = 0;
    int64_t revision = 0;
    while (options.clock->SleepFor(options.compaction_interval, stop)) {
      CompactRound(&version, &revision);
    }
  }

  void Shutdown() {
    if (compactor.joinable()) {
      compactor.request_stop();
      compactor.join();
    }
    {
      std::unique_lock lock(mu);
      stopping = true;
      if (watch_context) watch_context->TryCancel();
      cv.notify_all();
    }
    // Writes being sent end by their deadline at the latest.
    for (std::thread& writer : writers) {
      if (writer.joinable()) writer.join();
    }
    if (feeder.joinable()) feeder.join();
    if (hub) hub->Shutdown();
  }
};

Result<std::unique_ptr<EtcdStore>> EtcdStore::Open(const EtcdStoreOptions& options) {
  if (options.prefix.find('\0') != std::string::npos) {
    return Status::BadRequest("etcd store: prefix contains a NUL byte");
  }
  if (options.list_page_size <= 0)
    return Status::BadRequest("etcd store: list page size must be positive");
  if (options.request_timeout <= std::chrono::milliseconds(0)) {
    return Status::BadRequest("etcd store: request timeout must be positive");
  }
  if (options.attempt_timeout <= std::chrono::milliseconds(0)) {
    return Status::BadRequest("etcd store: attempt timeout must be positive");
  }
  if (options.watch_silence_limit < std::chrono::milliseconds(100)) {
    return Status::BadRequest("etcd store: watch silence limit must be at least 100 ms");
  }
  if (options.compaction_interval < std::chrono::nanoseconds(0)) {
    return Status::BadRequest("etcd store: compaction interval must not be negative");
  }
  auto impl = std::make_shared<Impl>(options);
  if (!impl->options.clock) impl->options.clock = Clock::Real();
  if (Status s = impl->Connect(); !s.ok()) return s;
  auto revision = impl->FetchRevision();
  if (!revision.ok()) {
    return Status(revision.status().reason(),
                  "etcd store: cannot reach any endpoint: " + revision.status().message());
  }
  impl->hub = std::make_unique<WatchHub>(options.watch_history_capacity, *revision,
                                         options.watch_history_bytes);
  for (size_t n = 0; n < std::max<size_t>(1, options.max_writes_in_flight); ++n) {
    impl->writers.emplace_back([i = impl.get()] { i->RunWriter(); });
  }
  impl->feeder = std::thread([i = impl.get(), r = *revision] { i->RunFeeder(r); });
  if (options.compaction_interval > std::chrono::nanoseconds(0)) {
    impl->compactor =
        std::jthread([i = impl.get()](std::stop_token stop) { i->RunCompactor(stop); });
  }
  return std::unique_ptr<EtcdStore>(new EtcdStore(std::move(impl)));
}

EtcdStore::EtcdStore(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

EtcdStore::~EtcdStore() { impl_->Shutdown(); }

void EtcdStore::Close() { impl_->Shutdown(); }

Result<KeyValue> EtcdStore::Get(std::string_view key) { return GetBefore(key, kNoDeadline); }

Result<KeyValue> EtcdStore::GetBefore(std::string_view key, Deadline deadline) {
  auto etcd_key = impl_->EtcdKey(key);
  if (!etcd_key.ok()) return etcd_key.status();
  pb::RangeRequest request;
  request.set_key(*etcd_key);
  auto response = impl_->Range(std::move(request), deadline);
  if (!response.ok()) return response.status();
  if (response->kvs_size() == 0) return Status::NotFound("key not found: " + std::string(key));
  KeyValue kv = impl_->ToKeyValue(response->kvs(0));
  impl_->Remember(kv, /*deleted=*/false);
  return kv;
}

std::optional<KeyValue> EtcdStore::KnownValue(std::string_view key, int64_t mod_revision) {
  return impl_->known.Lookup(key, mod_revision);
}

Result<ListResult> EtcdStore::List(std::string_view prefix) {
  ListResult result;
  auto range = impl_->EtcdRange(prefix);
  if (!range) {
    auto revision = impl_->FetchRevision();
    if (!revision.ok()) return revision.status();
    result.revision = *revision;
    return result;
  }
  // Pages of one snapshot: the first page fixes the revision, the next ones read at it.
  std::string start = range->first;
  while (true) {
    pb::RangeRequest request;
    request.set_key(start);
    request.set_range_end(range->second);
    request.set_limit(impl_->options.list_page_size);
    request.set_revision(result.revision);
    auto response = impl_->Range(std::move(request));
    if (!response.ok()) return response.status();
    if (result.revision == 0) result.revision = response->header().revision();
    for (const mvccpb::KeyValue& kv : response->kvs())
      result.items.push_back(impl_->ToKeyValue(kv));
    if (!response->more() || response->kvs_size() == 0) break;
    start = response->kvs(response->kvs_size() - 1).key() + std::string(1, '\0');
  }
  return result;
}

int64_t EtcdStore::CurrentRevision() {
  auto revision = impl_->FetchRevision();
  return revision.ok() ? *revision : impl_->last_seen_revision.load();
}

void EtcdStore::Write(WriteOp op, WriteCallback done) {
  impl_->Write(std::move(op), std::move(done));
}

Result<std::unique_ptr<WatchHandle>> EtcdStore::Watch(std::string_view prefix,
                                                      int64_t from_revision,
                                                      EventCallback on_events) {
  if (from_revision < 0) return Status::BadRequest("negative resource version");
  if (from_revision == 0) {
    auto revision = impl_->FetchRevision();
    if (!revision.ok()) return revision.status();
    from_revision = *revision;
  } else {
    // etcd's history is the authority on what was compacted (the hub may still hold more).
    auto response = impl_->FetchRevision(from_revision);
    if (!response.ok() && response.status().IsGone()) {
      return Status::Gone("too old resource version: " + std::to_string(from_revision) +
                          " (compacted in etcd)");
    }
    // A future revision is fine (the hub filters up to it); other failures are the caller's.
    if (!response.ok() && response.status().reason() != Reason::kBadRequest) {
      return response.status();
    }
  }
  return impl_->hub->Watch(prefix, from_revision, std::move(on_events));
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

std::string EtcdStore::CurrentEndpoint() const {
  return impl_->endpoints[impl_->current.load()].url;
}

std::string EtcdStore::WatchEndpoint() const {
  int idx = impl_->watch_endpoint.load();
  return idx < 0 ? std::string() : impl_->endpoints[static_cast<size_t>(idx)].url;
}

}  // namespace tenure::store
