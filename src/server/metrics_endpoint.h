// MetricsEndpoint: the body of GET /metrics (Prometheus text format 0.0.4), as kube-apiserver
// serves it to authenticated clients. It renders the server's own gauges, then the sections
// other components registered at run time (e.g. `tenure serve`'s coordination controller, which
// the server does not depend on), in registration order. A section renders complete metric
// families (HELP, TYPE, samples) ending in "\n"; it is called on an HTTP thread, per scrape, and
// must stay callable until the server has stopped. Thread-safe.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace tenure::server {

class MetricsEndpoint {
 public:
  using Section = std::function<std::string()>;

  explicit MetricsEndpoint(Section server_metrics);
  void Add(Section section);
  std::string Render() const;

  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  mutable std::mutex mu_;
  std::vector<Section> sections_;
};

// One gauge family with a single sample: "# HELP name help\n# TYPE name gauge\nname value\n".
std::string GaugeFamily(const std::string& name, const std::string& help, double value);

}  // namespace tenure::server
