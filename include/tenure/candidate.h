// CandidateRegistrar: the candidate side of coordinated leader election. It keeps this process's
// LeaseCandidate (coordination.k8s.io, named after the identity) registered so the server's
// election controller can pick a leader for `lease_name`; the elector then runs with
// ElectionConfig::coordinated and only renews a lease the controller assigned to it.
//
// Contract:
// - Start validates the options with the API server's own rules (strict semver
//   MAJOR.MINOR.PATCH, emulation <= binary, strategy "OldestEmulationVersion" or a qualified
//   "<domain>/<name>", candidate name rules) and fails with Invalid before any request; the
//   server's validation stays authoritative and its Invalid is returned as is.
// - Start picks the served version by discovery (v1beta1, else v1alpha2; NotFound with an
//   explanation when neither is served), starts the watch of its candidate (waiting at most
//   request_timeout for it to stream) and registers synchronously: it creates the candidate
//   with renewTime = now, or, when one of that name exists, renews it. An existing candidate
//   whose leaseName, versions or strategy differ (left by an earlier process with the same
//   identity) is deleted and created anew; otherwise versions and strategy are never changed.
// - While running: renewTime is renewed every renew_interval; a ping (pingTime newer than
//   renewTime, seen through a watch of the candidate) is acknowledged at once; a candidate
//   deleted by someone else (e.g. garbage collected) is created again. Failed requests are
//   retried every retry_period. While the watch is down the candidate is polled every
//   retry_period instead, so pings are still answered.
// - Stop (or the destructor) stops the background thread and deletes the candidate, each
//   request bounded by request_timeout. Stop is idempotent.
// - An ack writes renewTime = max(now, pingTime): a candidate whose clock is behind the
//   controller's still acknowledges each ping exactly once.
// Thread-safe: every method may be called from any thread. One background thread per registrar;
// its waits (renewal, retries, polls) go through the injected Clock.
//
// Use (examples/elect.cc --coordinated does exactly this):
//   auto registrar = CandidateRegistrar::Start(cluster, {.namespace_ = "kube-system",
//       .identity = id, .lease_name = "kube-scheduler", .binary_version = "1.34.0",
//       .emulation_version = "1.33.0"});
//   ElectionConfig config;  // lock: NewLeaseLock(cluster, {"kube-system", "kube-scheduler", id})
//   config.coordinated = true;
//   config.recontend_after = config.retry_period;  // stay a candidate after a preemption
//   ... run the elector; on shutdown: registrar->Stop() first, then stop the elector (so the
//   controller does not assign the lease the elector is about to release).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "tenure/clock.h"
#include "tenure/cluster.h"
#include "tenure/status.h"

namespace tenure {

inline constexpr const char* kOldestEmulationVersion = "OldestEmulationVersion";

struct CandidateOptions {
  std::string namespace_;         // "" : the cluster's default namespace
  std::string identity;           // the LeaseCandidate's name; also the elector's identity
  std::string lease_name;         // the Lease the candidate runs for
  std::string binary_version;     // e.g. "1.34.0"
  std::string emulation_version;  // e.g. "1.33.0"; required by OldestEmulationVersion
  std::string strategy = kOldestEmulationVersion;
  std::chrono::nanoseconds renew_interval = std::chrono::minutes(5);
  std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(10);
  std::shared_ptr<Clock> clock;  // default: Clock::Real()
  // Optional. A request failed with the server's Status (Forbidden names the missing right);
  // called once per distinct error, again after a success. The registrar keeps retrying.
  std::function<void(const Status& error)> on_error;
};

struct CandidateRegistrarStats {
  uint64_t renewals = 0;     // periodic renewals written
  uint64_t acks = 0;         // pings acknowledged
  uint64_t recreations = 0;  // candidate created again after it vanished
  uint64_t failed_requests = 0;
};

class CandidateRegistrar {
 public:
  static Result<std::unique_ptr<CandidateRegistrar>> Start(std::shared_ptr<Cluster> cluster,
                                                           CandidateOptions options);
  ~CandidateRegistrar();
  CandidateRegistrar(const CandidateRegistrar&) = delete;
  CandidateRegistrar& operator=(const CandidateRegistrar&) = delete;

  // Stops renewing and deletes the candidate; returns the deletion's outcome (OK when it was
  // already gone).
  Status Stop();

  // "coordination.k8s.io/v1beta1" or "coordination.k8s.io/v1alpha2".
  const std::string& api_version() const;
  const CandidateOptions& options() const;
  CandidateRegistrarStats stats() const;
  // The last failed request's status (OK when the last request succeeded).
  Status last_error() const;

 private:
  struct State;
  explicit CandidateRegistrar(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The input checks Start makes, without any request: Invalid with the server's messages.
Status ValidateCandidateOptions(const CandidateOptions& options);

}  // namespace tenure
