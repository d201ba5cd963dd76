// ControllerMetrics: counters of the coordinated election controller, rendered in the Prometheus
// text format (0.0.4) for a /metrics endpoint:
//   tenure_coordination_leading                      gauge: 1 while this replica runs the
//                                                    controller
//   tenure_coordination_candidates                   gauge: LeaseCandidates in the cache
//   tenure_coordination_leases                       gauge: Leases in the cache (those that
//                                                    candidates run for)
//   tenure_coordination_reconciles_total             counter: reconciles of leases with candidates
//   tenure_coordination_pings_total                  counter: pings sent
//   tenure_coordination_elections_total              counter: holders assigned
//   tenure_coordination_preemptions_total            counter: preferredHolder set
//   tenure_coordination_preferred_holder_cleared_total counter: stale preferredHolder cleared
//   tenure_coordination_strategy_conflicts_total     counter: conflicts found (once per conflict)
//   tenure_coordination_candidates_collected_total   counter: expired candidates deleted
//   tenure_coordination_errors_total                 counter: failed API calls
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace tenure::coordination {

struct ControllerMetrics {
  std::atomic<int64_t> leading{0};
  std::atomic<int64_t> candidates{0};
  std::atomic<int64_t> leases{0};
  std::atomic<uint64_t> reconciles{0};
  std::atomic<uint64_t> pings{0};
  std::atomic<uint64_t> elections{0};
  std::atomic<uint64_t> preemptions{0};
  std::atomic<uint64_t> preferred_holder_cleared{0};
  std::atomic<uint64_t> strategy_conflicts{0};
  std::atomic<uint64_t> candidates_collected{0};
  std::atomic<uint64_t> errors{0};

  std::string Render() const;
};

}  // namespace tenure::coordination
