// Controller: the coordinated election controller, leader-elected itself, running the Reconciler.
#include "coordination/controller.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <random>

#include "api/time.h"
#include "client/event_recorder.h"
#include "client/kube_client.h"
#include "coordination/reconciler.h"
#include "election/cluster_access.h"
#include "tenure/elector.h"
#include "tenure/identity.h"
#include "tenure/kube_locks.h"
#include "tenure/log.h"

namespace tenure::coordination {

namespace {

void LogToTenureLog(const std::string& line) { Log(LogLevel::kInfo, "coordination", line); }

}  // namespace

struct Controller::State {
  ControllerOptions options;
  std::string candidate_version;
  ControllerMetrics metrics;
  std::unique_ptr<client::EventRecorder> events;
  std::shared_ptr<Elector> elector;
  std::unique_ptr<ElectionHandle> election;
};

Controller::Controller(std::unique_ptr<State> state) : state_(std::move(state)) {}

Controller::~Controller() { Stop(); }

Result<std::unique_ptr<Controller>> Controller::Start(std::shared_ptr<Cluster> cluster,
                                                      ControllerOptions options) {
  if (!options.clock) options.clock = Clock::Real();
  if (options.identity.empty()) options.identity = UniqueIdentity();
  if (!options.log) options.log = LogToTenureLog;
  auto version =
      client::ServedLeaseCandidateVersion(KubeClientOf(*cluster), std::chrono::seconds(10));
  if (!version.ok()) return version.status();

  auto state = std::make_unique<State>();
  state->options = options;
  state->candidate_version = *version;
  state->events = std::make_unique<client::EventRecorder>(
      ClusterAccess::SharedClient(*cluster), "leader-election-controller", options.identity);
  State* st = state.get();

  ElectionConfig config;
  config.lock = NewLeaseLock(cluster, {options.election_namespace, options.election_name,
                                       options.identity, /*publish_events=*/true});
  config.lease_duration = options.lease_duration;
  config.renew_deadline = options.renew_deadline;
  config.retry_period = options.retry_period;
  config.release_on_cancel = true;
  config.recontend_after = options.retry_period;  // a replica that lost leadership campaigns again
  config.clock = options.clock;
  config.name = "leader-election-controller";
  config.callbacks.on_started_leading = [st, client = ClusterAccess::SharedClient(*cluster)](
                                            std::stop_token stop, const LeaderTerm&) {
    st->options.log("leading as " + st->options.identity + "; LeaseCandidate " +
                    st->candidate_version);
    st->metrics.leading = 1;
    ReconcilerOptions ro{st->options.timings, st->options.gc_interval, st->candidate_version,
                         st->options.clock, st->options.log};
    Reconciler(client, std::move(ro), st->metrics, *st->events).Run(stop);
    st->metrics.leading = 0;
  };
  config.callbacks.on_stopped_leading = [st] { st->options.log("stopped leading"); };
  auto elector = Elector::Create(std::move(config));
  if (!elector.ok()) return elector.status();
  state->elector = std::move(*elector);
  state->election = std::make_unique<ElectionHandle>(state->elector);
  return std::unique_ptr<Controller>(new Controller(std::move(state)));
}

void Controller::Stop() {
  if (!state_ || !state_->election) return;
  state_->election->Stop();  // ends the term (the work loop's stop token) and releases the lease
  state_->election.reset();
  state_->elector.reset();  // waits for the work loop's thread
  state_->events.reset();
}

bool Controller::IsLeading() const { return state_->metrics.leading.load() == 1; }
const std::string& Controller::identity() const { return state_->options.identity; }
const std::string& Controller::candidate_version() const { return state_->candidate_version; }
const ControllerMetrics& Controller::metrics() const { return state_->metrics; }

}  // namespace tenure::coordination
