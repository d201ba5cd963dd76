// Prometheus text exposition (format 0.0.4) of electors' metrics, with the names Kubernetes
// components use:
//   leader_election_master_status{name}      gauge: 1 while leading, else 0
//   leader_election_slowpath_total{name}     counter: renewals that needed a GET
//   leader_election_transitions_total{name}  counter: terms this candidate started
//   leader_election_renew_total{name}        counter: successful renewals
//   leader_election_failed_attempts_total{name} counter: acquire/renew attempts that failed
//   leader_election_renew_latency_seconds{name} gauge: duration of the last successful renewal
#pragma once

#include <string>
#include <vector>

#include "tenure/elector.h"

namespace tenure {

std::string RenderPrometheusMetrics(const std::vector<const Elector*>& electors);

}  // namespace tenure
