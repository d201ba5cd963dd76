// CandidateRegistrar: keeps one LeaseCandidate registered, renewed and answering pings (see
// tenure/candidate.h for the contract).
//
// One worker thread does every write. The watch handler only queues events and wakes it, so a
// slow server never blocks the shared watch thread. The candidate is kept as the typed object the
// server last returned and written back through the typed codec with its resourceVersion; the
// codec keeps what it was decoded from, so fields this code does not know survive an update.
#include <algorithm>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "api/api_paths.h"
#include "api/codec.h"
#include "api/kinds.h"
#include "api/resource_version.h"
#include "api/time.h"
#include "client/kube_client.h"
#include "client/resource_version.h"
#include "election/cluster_access.h"
#include "tenure/candidate.h"
#include "tenure/log.h"

namespace tenure {

using nlohmann::json;

Status ValidateCandidateOptions(const CandidateOptions& o) {
  auto invalid = [](std::string m) { return Status(Reason::kInvalid, std::move(m)); };
  if (o.identity.empty()) return invalid("candidate identity is empty");
  if (o.renew_interval.count() <= 0) return invalid("renew interval must be greater than zero");
  if (o.retry_period.count() <= 0) return invalid("retry period must be greater than zero");
  if (o.request_timeout.count() <= 0) return invalid("request timeout must be greater than zero");
  // The server's own rules, with its messages (strict semver, emulation <= binary, strategy,
  // name): a bad candidate fails here instead of at the first request.
  api::LeaseCandidate candidate;
  candidate.metadata.name = o.identity;
  candidate.metadata.namespace_ = o.namespace_.empty() ? "default" : o.namespace_;
  candidate.spec.lease_name = o.lease_name;
  candidate.spec.binary_version = o.binary_version;
  candidate.spec.emulation_version = o.emulation_version;
  candidate.spec.strategy = o.strategy;
  const api::KindInfo* kind = api::FindByResource("coordination.k8s.io", "leasecandidates");
  return api::ValidateCreate(*kind, api::ToJson(candidate));
}

struct CandidateRegistrar::State {
  std::shared_ptr<Cluster> cluster;
  CandidateOptions options;
  std::string served_version;  // "v1beta1"
  std::string api_version;     // "coordination.k8s.io/v1beta1"
  std::string collection;      // ".../namespaces/NS/leasecandidates"
  std::string object_path;     // collection + "/IDENTITY"

  mutable std::mutex mu;
  std::optional<api::LeaseCandidate> cached;  // the candidate as last read or written by us
  struct WatchEvent {
    std::string type;
    json object;
  };
  std::deque<WatchEvent> events;  // from the watch, not yet handled by the worker
  std::stop_source wake;          // wakes the sleeping worker
  CandidateRegistrarStats stats;
  Status last_error;
  std::string reported_error;  // the error on_error last heard of
  std::mutex stop_mu;          // serializes Stop: a second caller waits for the first one's outcome
  bool stopped = false;
  Status stop_result;
  std::unique_ptr<client::Subscription> subscription;
  std::jthread worker;

  Clock& clock() const { return *options.clock; }

  Result<json> Call(const std::string& method, const std::string& path, const json* body) {
    auto reply = KubeClientOf(*cluster).Call(method, path, body, options.request_timeout);
    bool tell = false;
    {
      std::lock_guard lock(mu);
      const Status& s = reply.status();
      if (reply.ok() || s.IsConflict() || s.IsAlreadyExists() ||
          (s.IsNotFound() && method != "POST")) {
        // Expected answers of optimistic concurrency (and a candidate deleted by someone else):
        // handled by the caller. A POST answered NotFound means the namespace or the API is gone.
        last_error = Status::Ok();
        reported_error.clear();
      } else {
        last_error = reply.status();
        ++stats.failed_requests;
        tell = last_error.message() != reported_error;
        if (tell) reported_error = last_error.message();
      }
    }
    if (tell) {
      Log(LogLevel::kWarning, "candidate", "LeaseCandidate request failed",
          {{"candidate", options.identity},
           {"method", method},
           {"error", reply.status().ToString()}});
      if (options.on_error) options.on_error(reply.status());
    }
    return reply;
  }

  // The server's object, typed (it keeps what it was decoded from: fields this code does not
  // know, a newer server's, survive an update); Internal when the typed codec cannot read it.
  Result<api::LeaseCandidate> Decode(const json& object) const {
    auto fields = api::LeaseCandidateFromJson(object);
    if (!fields.ok()) {
      return Status::Internal(
          "LeaseCandidate " + options.identity +
          ": the server sent an object that cannot be read: " + fields.status().message());
    }
    return fields;
  }

  void Remember(const api::LeaseCandidate& seen) {
    std::lock_guard lock(mu);
    cached = seen;
  }

  json NewObject() const {
    api::LeaseCandidate c;
    c.metadata.name = options.identity;
    c.metadata.namespace_ = options.namespace_;
    c.spec.lease_name = options.lease_name;
    c.spec.binary_version = options.binary_version;
    c.spec.emulation_version = options.emulation_version;
    c.spec.strategy = options.strategy;
    c.spec.renew_time = api::TruncateToMicros(clock().wall_now());
    return api::ToJson(c, served_version);
  }

  // Whether an existing candidate is the one we would create (else it is replaced at start).
  bool Matches(const api::LeaseCandidateSpec& spec) const {
    return spec.lease_name == options.lease_name && spec.binary_version == options.binary_version &&
           spec.emulation_version == options.emulation_version && spec.strategy == options.strategy;
  }

  // Creates the candidate; AlreadyExists is returned to the caller.
  Status Create() {
    json object = NewObject();
    auto created = Call("POST", collection, &object);
    if (!created.ok()) return created.status();
    auto seen = Decode(std::move(*created));
    if (!seen.ok()) return seen.status();
    Remember(*seen);
    return Status::Ok();
  }

  // Brings the candidate to "exists; renewed now if `renew`, or if a ping is pending". `seen`
  // is the latest known object (nullopt: read it first). Conflicts re-read and retry;
  // a vanished candidate is created again.
  Status Converge(std::optional<api::LeaseCandidate> seen, bool renew) {
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (!seen) {
        auto got = Call("GET", object_path, nullptr);
        if (got.status().IsNotFound()) {
          Status s = Create();
          if (s.IsAlreadyExists()) continue;  // created meanwhile: read it
          if (s.ok()) {
            std::lock_guard lock(mu);
            ++stats.recreations;
          }
          return s;
        }
        if (!got.ok()) return got.status();
        auto decoded = Decode(std::move(*got));
        if (!decoded.ok()) return decoded.status();
        Remember(*decoded);
        seen = std::move(*decoded);
      }
      const api::LeaseCandidateSpec& spec = seen->spec;
      bool ack = api::PingPending(spec);
      if (!renew && !ack) return Status::Ok();
      api::Timestamp renew_time = api::TruncateToMicros(clock().wall_now());
      if (ack && spec.ping_time && *spec.ping_time > renew_time) {
        renew_time = *spec.ping_time;  // our clock is behind the controller's: still answer once
      }
      api::LeaseCandidate renewed = *seen;
      renewed.spec.renew_time = renew_time;
      json object = api::ToJson(renewed, served_version);
      auto written = Call("PUT", object_path, &object);
      if (written.ok()) {
        auto decoded = Decode(std::move(*written));
        if (!decoded.ok()) return decoded.status();
        Remember(*decoded);
        std::lock_guard lock(mu);
        ++(ack ? stats.acks : stats.renewals);
        return Status::Ok();
      }
      if (!written.status().IsConflict() && !written.status().IsNotFound()) {
        return written.status();
      }
      seen.reset();  // changed or gone since: read again
    }
    return Status::Conflict("LeaseCandidate " + options.identity + ": kept changing under us");
  }

  // First registration: create, or take over an existing candidate of that name (renewed when
  // it matches, replaced when it was left with other versions or strategy).
  Status Register() {
    for (int attempt = 0; attempt < 5; ++attempt) {
      Status s = Create();
      if (!s.IsAlreadyExists()) return s;
      auto got = Call("GET", object_path, nullptr);
      if (got.status().IsNotFound()) continue;
      if (!got.ok()) return got.status();
      auto existing = Decode(std::move(*got));
      if (!existing.ok()) return existing.status();
      if (Matches(existing->spec)) {
        Remember(*existing);
        return Converge(std::move(*existing), /*renew=*/true);
      }
      // Versions are never changed in place: the old candidate goes, ours is created.
      json options_body = api::ToJson(
          api::DeleteOptions{.preconditions = api::Preconditions{.uid = existing->metadata.uid}});
      auto deleted = Call("DELETE", object_path, &options_body);
      if (!deleted.ok() && !deleted.status().IsNotFound() && !deleted.status().IsConflict()) {
        return deleted.status();
      }
    }
    return Status::Conflict("LeaseCandidate " + options.identity + ": kept changing under us");
  }

  // Picks the served version by discovery: v1beta1, else v1alpha2.
  Status Discover() {
    auto version =
        client::ServedLeaseCandidateVersion(KubeClientOf(*cluster), options.request_timeout);
    if (!version.ok()) return version.status();
    const api::KindInfo& kind = api::LeaseCandidateKind();
    served_version = *version;
    api_version = kind.api_version(*version);
    collection = api::CollectionPath(kind, *version, options.namespace_);
    object_path = api::ObjectPath(kind, *version, options.namespace_, options.identity);
    return Status::Ok();
  }

  // The watch connects on its own thread; waits (real time, at most request_timeout) until it
  // streams. If it does not, the worker polls instead.
  void WaitUntilActive(const client::Subscription& subscription) const {
    auto deadline = std::chrono::steady_clock::now() + options.request_timeout;
    while (!subscription.active() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  void OnWatched(const std::string& type, const json& object) {
    std::lock_guard lock(mu);
    events.push_back({type, object});
    wake.request_stop();
  }

  // Handles one watch event; returns a failure to retry later by polling.
  Status Handle(const WatchEvent& event) {
    std::optional<api::LeaseCandidate> current;
    {
      std::lock_guard lock(mu);
      current = cached;
    }
    auto seen = Decode(event.object);
    if (!seen.ok()) return seen.status();
    const api::ObjectMeta& meta = seen->metadata;
    if (event.type == "DELETED") {
      // A relist reports a deletion by name only; a uid names which incarnation went.
      if (current && !meta.uid.empty() && meta.uid != current->metadata.uid) {
        return Status::Ok();  // an old one
      }
      return Converge(std::nullopt, /*renew=*/false);  // reads NotFound and creates it again
    }
    if (current &&
        client::KnownOlder(api::ParseResourceVersion(meta.resource_version),
                           api::ParseResourceVersion(current->metadata.resource_version)))
      return Status::Ok();
    Remember(*seen);
    return Converge(std::move(*seen), /*renew=*/false);
  }

  void Loop(std::stop_token stop) {
    constexpr Clock::TimePoint kNever = Clock::TimePoint::max();
    Clock::TimePoint renew_at = clock().now() + options.renew_interval;
    Clock::TimePoint check_at = kNever;  // a GET to retry a failure or to poll
    while (!stop.stop_requested()) {
      std::stop_source woken;
      bool polling;
      {
        std::lock_guard lock(mu);
        polling = subscription == nullptr || !subscription->active();
        wake = woken;
        if (!events.empty()) woken.request_stop();
      }
      if (polling && check_at == kNever) check_at = clock().now() + options.retry_period;
      {
        std::stop_callback forward(stop, [&] { woken.request_stop(); });
        clock().SleepUntil(std::min(renew_at, check_at), woken.get_token());
      }
      if (stop.stop_requested()) return;
      std::deque<WatchEvent> batch;
      {
        std::lock_guard lock(mu);
        batch.swap(events);
      }
      bool failed = false;
      for (const WatchEvent& event : batch) {
        if (!Handle(event).ok()) failed = true;
      }
      Clock::TimePoint now = clock().now();
      if (now >= renew_at) {
        std::optional<api::LeaseCandidate> current;
        {
          std::lock_guard lock(mu);
          current = cached;
        }
        bool ok = Converge(std::move(current), /*renew=*/true).ok();
        renew_at = now + (ok ? options.renew_interval : options.retry_period);
      } else if (now >= check_at) {
        check_at = kNever;
        if (!Converge(std::nullopt, /*renew=*/false).ok()) failed = true;
      }
      if (failed && check_at == kNever) check_at = now + options.retry_period;
    }
  }
};

CandidateRegistrar::CandidateRegistrar(std::unique_ptr<State> state) : state_(std::move(state)) {}

CandidateRegistrar::~CandidateRegistrar() { Stop(); }

Result<std::unique_ptr<CandidateRegistrar>> CandidateRegistrar::Start(
    std::shared_ptr<Cluster> cluster, CandidateOptions options) {
  if (!cluster) return Status(Reason::kInvalid, "cluster must not be null");
  if (options.namespace_.empty()) options.namespace_ = cluster->default_namespace();
  if (!options.clock) options.clock = Clock::Real();
  Status valid = ValidateCandidateOptions(options);
  if (!valid.ok()) return valid;
  auto state = std::make_unique<State>();
  state->cluster = std::move(cluster);
  state->options = std::move(options);
  if (Status s = state->Discover(); !s.ok()) return s;
  State* st = state.get();
  // Watch first, register second: a deletion right after the registration must not fall between
  // the creation and the watch's initial list (the list would not know the object, so no
  // DELETED would follow).
  auto subscription = KubeClientOf(*st->cluster)
                          .WatchObject(st->collection, st->options.identity,
                                       [st](const std::string& type, const json& object) {
                                         st->OnWatched(type, object);
                                       });
  st->WaitUntilActive(*subscription);
  {
    std::lock_guard lock(st->mu);
    st->subscription = std::move(subscription);
  }
  if (Status s = st->Register(); !s.ok()) {
    std::unique_ptr<client::Subscription> dropped;
    {
      std::lock_guard lock(st->mu);
      dropped = std::move(st->subscription);
    }
    return s;  // `dropped` goes first: no delivery runs once it is destroyed
  }
  st->worker = std::jthread([st](std::stop_token stop) { st->Loop(stop); });
  return std::unique_ptr<CandidateRegistrar>(new CandidateRegistrar(std::move(state)));
}

Status CandidateRegistrar::Stop() {
  State& st = *state_;
  std::lock_guard stopping(st.stop_mu);
  std::unique_ptr<client::Subscription> subscription;
  {
    std::lock_guard lock(st.mu);
    if (st.stopped) return st.stop_result;
    st.stopped = true;
    subscription = std::move(st.subscription);
  }
  subscription.reset();  // no delivery runs after this (it may take st.mu: not held here)
  if (st.worker.joinable()) {
    st.worker.request_stop();
    st.worker.join();
  }
  std::string uid;
  {
    std::lock_guard lock(st.mu);
    if (st.cached) uid = st.cached->metadata.uid;
  }
  // Only the incarnation we know: a candidate of the same name registered by a newer process
  // stays.
  api::DeleteOptions options;
  if (!uid.empty()) options.preconditions = api::Preconditions{.uid = uid};
  json body = api::ToJson(options);
  auto deleted = st.Call("DELETE", st.object_path, &body);
  Status result = deleted.ok() || deleted.status().IsNotFound() ? Status::Ok() : deleted.status();
  std::lock_guard lock(st.mu);
  st.stop_result = result;
  return result;
}

const std::string& CandidateRegistrar::api_version() const { return state_->api_version; }

const CandidateOptions& CandidateRegistrar::options() const { return state_->options; }

CandidateRegistrarStats CandidateRegistrar::stats() const {
  std::lock_guard lock(state_->mu);
  return state_->stats;
}

Status CandidateRegistrar::last_error() const {
  std::lock_guard lock(state_->mu);
  return state_->last_error;
}

}  // namespace tenure
