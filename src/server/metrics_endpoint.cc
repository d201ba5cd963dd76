// MetricsEndpoint: the GET /metrics body from registered sections; GaugeFamily.
#include "server/metrics_endpoint.h"

#include <cstdio>

namespace tenure::server {

MetricsEndpoint::MetricsEndpoint(Section server_metrics) {
  sections_.push_back(std::move(server_metrics));
}

void MetricsEndpoint::Add(Section section) {
  std::lock_guard lock(mu_);
  sections_.push_back(std::move(section));
}

std::string MetricsEndpoint::Render() const {
  std::vector<Section> sections;
  {
    std::lock_guard lock(mu_);
    sections = sections_;  // render outside the lock: a section may be slow
  }
  std::string out;
  for (const Section& section : sections) out += section();
  return out;
}

std::string GaugeFamily(const std::string& name, const std::string& help, double value) {
  char number[32];
  std::snprintf(number, sizeof number, "%.17g", value);
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + " " + number +
         "\n";
}

}  // namespace tenure::server
