// ControllerMetrics::Render: the coordination controller's counters in Prometheus text format.
#include "coordination/controller_metrics.h"

namespace tenure::coordination {

namespace {

template <typename T>
void Family(std::string& out, const char* name, const char* type, const char* help,
            const std::atomic<T>& value) {
  out += std::string("# HELP ") + name + " " + help + "\n";
  out += std::string("# TYPE ") + name + " " + type + "\n";
  out += std::string(name) + " " + std::to_string(value.load()) + "\n";
}

}  // namespace

std::string ControllerMetrics::Render() const {
  std::string out;
  Family(out, "tenure_coordination_leading", "gauge",
         "Whether this replica runs the coordinated election controller (1) or not (0).", leading);
  Family(out, "tenure_coordination_candidates", "gauge", "LeaseCandidates in the cache.",
         candidates);
  Family(out, "tenure_coordination_leases", "gauge",
         "Leases in the cache: those that LeaseCandidates run for.", leases);
  Family(out, "tenure_coordination_reconciles_total", "counter",
         "Reconciles of leases that have candidates.", reconciles);
  Family(out, "tenure_coordination_pings_total", "counter", "Pings sent to candidates.", pings);
  Family(out, "tenure_coordination_elections_total", "counter", "Holders assigned to leases.",
         elections);
  Family(out, "tenure_coordination_preemptions_total", "counter",
         "preferredHolder set to a better candidate.", preemptions);
  Family(out, "tenure_coordination_preferred_holder_cleared_total", "counter",
         "Stale preferredHolder values cleared.", preferred_holder_cleared);
  Family(out, "tenure_coordination_strategy_conflicts_total", "counter",
         "Strategy conflicts found among candidates of one binary version.", strategy_conflicts);
  Family(out, "tenure_coordination_candidates_collected_total", "counter",
         "Expired LeaseCandidates deleted.", candidates_collected);
  Family(out, "tenure_coordination_errors_total", "counter", "API calls that failed.", errors);
  return out;
}

}  // namespace tenure::coordination
