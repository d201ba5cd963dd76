// Prometheus text exposition (format 0.0.4) of electors' metrics, with the names Kubernetes
// components use:
//   leader_election_master_status{name}      gauge: 1 while leading, else 0
//   leader_election_slowpath_total{name}     counter: renewals that needed a GET
//   leader_election_transitions_total{name}  counter: terms this candidate started
//   leader_election_renew_total{name}        counter: successful renewals
//   leader_election_failed_attempts_total{name} counter: acquire/renew attempts that failed
//   leader_election_renew_latency_seconds{name} gauge: duration of the last successful renewal
//   leader_election_renew_duration_seconds{name} histogram: every successful renewal's duration
//                                            (buckets kRenewDurationBuckets, 1 ms to 5 s)
//   tenure_build_info{version}               gauge: always 1, the version in its label
// The first two are client-go's own names (k8s.io/client-go/tools/leaderelection); the others
// follow its naming.
#pragma once

#include <string>
#include <vector>

#include "tenure/elector.h"

namespace tenure {

// RenderBuildInfo() (tenure/version.h) is tenure_build_info alone, which this includes.
std::string RenderPrometheusMetrics(const std::vector<const Elector*>& electors);

}  // namespace tenure
