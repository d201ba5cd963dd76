// EtcdStore's endpoints: parsing, channels and TLS, choosing a ready member and avoiding hung
// ones, attempt and operation deadlines, reads with failover, and gRPC failures as Statuses.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "store/etcd_store_impl.h"

namespace tenure::store {
namespace {

// How long a request waits for another member to become ready before it takes a suspect one.
constexpr auto kSuspectPatience = std::chrono::milliseconds(200);

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

}  // namespace

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

Status EtcdStore::Impl::Connect() {
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

Result<std::shared_ptr<grpc::ChannelCredentials>> EtcdStore::Impl::TlsCredentials() const {
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
int EtcdStore::Impl::PickReady(bool avoid_suspects) {
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
  if (found >= 0 && static_cast<size_t>(found) != start) current.store(static_cast<size_t>(found));
  return found;
}

// Waits until some endpoint is connected, the deadline passes or the store stops. A suspect
// member is taken only when no other one became ready within kSuspectPatience.
int EtcdStore::Impl::WaitForReady(SysClock::time_point deadline) {
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

void EtcdStore::Impl::MoveAwayFrom(size_t idx) {
  size_t expected = idx;
  current.compare_exchange_strong(expected, (idx + 1) % endpoints.size());
}

// A member that let an attempt run out is avoided for a while (another ready one is taken
// first), then trusted again.
void EtcdStore::Impl::MarkSuspect(size_t idx) {
  auto until = std::chrono::steady_clock::now() + options.request_timeout;
  endpoints[idx].suspect_until->store(until.time_since_epoch().count());
}

bool EtcdStore::Impl::Suspect(size_t idx) const {
  return std::chrono::steady_clock::now().time_since_epoch().count() <
         endpoints[idx].suspect_until->load();
}

bool EtcdStore::Impl::IsStopping() {
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
SysClock::time_point EtcdStore::Impl::AttemptDeadline(SysClock::time_point deadline,
                                                      size_t attempt) const {
  if (attempt >= endpoints.size()) return deadline;
  auto now = SysClock::now();
  auto share = (deadline - now) / static_cast<int64_t>(endpoints.size() - attempt + 1);
  return std::min(deadline, now + std::min<SysClock::duration>(options.attempt_timeout, share));
}

// An operation's deadline: the request timeout, or the caller's deadline when sooner.
SysClock::time_point EtcdStore::Impl::OperationDeadline(Deadline caller) const {
  auto now = SysClock::now();
  auto deadline = now + options.request_timeout;
  if (caller == kNoDeadline) return deadline;
  // Compared before adding: a far caller deadline must not overflow the time point.
  auto left = caller - std::chrono::steady_clock::now();
  if (left >= options.request_timeout) return deadline;
  return now + std::chrono::duration_cast<SysClock::duration>(left);
}

Deadline EtcdStore::Impl::ReadEnd(Deadline caller) const {
  const auto now = std::chrono::steady_clock::now();
  // Compared as a duration: kNoDeadline (the time point's maximum) must not be added to.
  return caller - now < options.request_timeout ? caller : now + options.request_timeout;
}

// After an attempt on endpoint `idx` failed in a way another member may not share.
// `cut_short`: the attempt had less than the whole operation's time, so a deadline exceeded
// says the member did not answer within its share (when the operation's own deadline ran out,
// perhaps a caller's short one, the member may be fine).
void EtcdStore::Impl::AttemptFailed(size_t idx, const grpc::Status& s, bool cut_short) {
  if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && cut_short) MarkSuspect(idx);
  MoveAwayFrom(idx);
}

// Every member answered "no leader" (an election is running): wait a moment before a new round.
void EtcdStore::Impl::PauseBeforeRetry() {
  std::unique_lock lock(mu);
  cv.wait_for(lock, kReconnectPause, [&] { return stopping; });
}

Result<pb::RangeResponse> EtcdStore::Impl::Range(pb::RangeRequest request, Deadline caller) {
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
Result<int64_t> EtcdStore::Impl::FetchRevision(int64_t at, Deadline caller) {
  pb::RangeRequest request;
  request.set_key(options.prefix.empty() ? std::string(1, '\0') : options.prefix);
  request.set_limit(1);
  request.set_count_only(true);
  if (at != 0) request.set_revision(at);
  auto response = Range(std::move(request), caller);
  if (!response.ok()) return response.status();
  return response->header().revision();
}

Result<int64_t> EtcdStore::Impl::FetchObjectCount(int64_t revision) {
  auto range = EtcdRange(kStoreRoot);
  pb::RangeRequest request;
  request.set_key(range->first);
  request.set_range_end(range->second);
  request.set_count_only(true);
  request.set_revision(revision);
  auto response = Range(std::move(request));
  if (!response.ok()) return response.status();
  return response->count();
}

}  // namespace tenure::store
