// RenderPrometheusMetrics: electors' leader_election_* metrics in Prometheus text format, the
// renewal duration histogram and tenure_build_info.
#include "tenure/metrics.h"

#include <cstdio>

#include "tenure/version.h"

namespace tenure {

namespace {

std::string EscapeLabel(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

struct Family {
  const char* name;
  const char* type;
  const char* help;
  double (*value)(const ElectorMetrics&);
};

constexpr Family kFamilies[] = {
    {"leader_election_master_status", "gauge",
     "Whether this candidate is the leader of the election (1) or not (0).",
     [](const ElectorMetrics& m) { return m.is_leader ? 1.0 : 0.0; }},
    {"leader_election_slowpath_total", "counter",
     "Renewals that needed a GET of the lock (the cached version was stale).",
     [](const ElectorMetrics& m) { return static_cast<double>(m.slow_path_total); }},
    {"leader_election_transitions_total", "counter", "Terms of leadership this candidate started.",
     [](const ElectorMetrics& m) { return static_cast<double>(m.transitions_total); }},
    {"leader_election_renew_total", "counter", "Successful acquisitions and renewals.",
     [](const ElectorMetrics& m) { return static_cast<double>(m.renew_total); }},
    {"leader_election_failed_attempts_total", "counter",
     "Acquire or renew attempts that did not succeed.",
     [](const ElectorMetrics& m) { return static_cast<double>(m.failed_attempts_total); }},
    {"leader_election_renew_latency_seconds", "gauge", "Duration of the last successful renewal.",
     [](const ElectorMetrics& m) {
       return std::chrono::duration<double>(m.last_renew_latency).count();
     }},
};

std::string Number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// leader_election_renew_duration_seconds: cumulative buckets, +Inf, sum and count per election.
void RenderRenewDurations(const std::vector<const Elector*>& electors, std::string& out) {
  const std::string name = "leader_election_renew_duration_seconds";
  out += "# HELP " + name + " Duration of successful renewals of the lease.\n";
  out += "# TYPE " + name + " histogram\n";
  for (const Elector* e : electors) {
    ElectorMetrics m = e->metrics();
    std::string label = "name=\"" + EscapeLabel(e->config().name) + "\"";
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kRenewDurationBuckets.size(); ++i) {
      cumulative += m.renew_duration_buckets[i];
      out += name + "_bucket{" + label + ",le=\"" + Number(kRenewDurationBuckets[i]) + "\"} " +
             std::to_string(cumulative) + "\n";
    }
    out += name + "_bucket{" + label + ",le=\"+Inf\"} " + std::to_string(m.renew_duration_count) +
           "\n";
    out += name + "_sum{" + label + "} " + Number(m.renew_duration_sum_seconds) + "\n";
    out += name + "_count{" + label + "} " + std::to_string(m.renew_duration_count) + "\n";
  }
}

}  // namespace

std::string RenderPrometheusMetrics(const std::vector<const Elector*>& electors) {
  std::string out;
  for (const Family& f : kFamilies) {
    out += std::string("# HELP ") + f.name + " " + f.help + "\n";
    out += std::string("# TYPE ") + f.name + " " + f.type + "\n";
    for (const Elector* e : electors) {
      char value[64];
      std::snprintf(value, sizeof value, "%.9g", f.value(e->metrics()));
      out +=
          std::string(f.name) + "{name=\"" + EscapeLabel(e->config().name) + "\"} " + value + "\n";
    }
  }
  RenderRenewDurations(electors, out);
  out += RenderBuildInfo();
  return out;
}

}  // namespace tenure
