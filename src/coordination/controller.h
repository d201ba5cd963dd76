// Controller: the coordinated leader election controller, as kube-apiserver runs it, for
// `tenure serve` (or any process with a connection to an API server).
//
// Start() finds the served LeaseCandidate version (coordination.k8s.io/v1beta1, else v1alpha2;
// NotFound when neither is served, i.e. the feature is off: there is nothing to run). The
// controller is itself leader-elected with libtenure on Lease
// kube-system/leader-election-controller (15 s / 10 s / 2 s, released on stop), so several
// server replicas run one controller between them; the Reconciler (reconciler.h) works only
// while this replica leads, and campaigns again after losing. Stop() ends the work, releases
// the lease and returns once every thread it started has finished.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "coordination/controller_metrics.h"
#include "coordination/decision.h"
#include "tenure/clock.h"
#include "tenure/cluster.h"
#include "tenure/status.h"

namespace tenure::coordination {

struct ControllerOptions {
  ElectionTimings timings;  // Kubernetes' defaults
  std::chrono::nanoseconds gc_interval = std::chrono::minutes(30);
  // The controller's own election.
  std::string identity;  // "" : "<hostname>_<random hex>", unique per process
  std::string election_namespace = "kube-system";
  std::string election_name = "leader-election-controller";
  std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
  std::shared_ptr<Clock> clock;  // default: Clock::Real()
  // One line per decision; default: stderr, prefixed "coordination: ".
  std::function<void(const std::string& line)> log;
};

class Controller {
 public:
  static Result<std::unique_ptr<Controller>> Start(std::shared_ptr<Cluster> cluster,
                                                   ControllerOptions options);
  ~Controller();  // Stop()
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void Stop();
  bool IsLeading() const;
  const std::string& identity() const;
  // "v1beta1" or "v1alpha2".
  const std::string& candidate_version() const;
  const ControllerMetrics& metrics() const;

 private:
  struct State;
  explicit Controller(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace tenure::coordination
