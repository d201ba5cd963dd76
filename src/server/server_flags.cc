// The values of `tenure serve`'s --feature-gates and --runtime-config flags parsed into
// ServerOptions (ApplyFeatureGates, ApplyRuntimeConfig).
#include <map>
#include <string>

#include "server/server.h"

namespace tenure::server {
namespace {

// Parses "k=v,k2=v2" with boolean values.
Result<std::map<std::string, bool>> ParseBoolMap(const std::string& text, const char* flag) {
  std::map<std::string, bool> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "true" : item.substr(eq + 1);
    if (value != "true" && value != "false") {
      return Status::BadRequest(std::string("invalid value in ") + flag + ": " + item +
                                " (expected true or false)");
    }
    out[key] = value == "true";
  }
  return out;
}

}  // namespace

Status ApplyFeatureGates(const std::string& text, ServerOptions& options) {
  auto gates = ParseBoolMap(text, "--feature-gates");
  if (!gates.ok()) return gates.status();
  for (const auto& [name, enabled] : *gates) {
    if (name == "CoordinatedLeaderElection") {
      options.coordinated_leader_election = enabled;
    } else if (name == "ConsistentListFromCache") {
      options.etcd.reads_from_watch_cache = enabled;  // the SQLite store always reads locally
    } else {
      return Status::BadRequest("unrecognized feature gate: " + name);
    }
  }
  return Status::Ok();
}

Status ApplyRuntimeConfig(const std::string& text, ServerOptions& options) {
  auto config = ParseBoolMap(text, "--runtime-config");
  if (!config.ok()) return config.status();
  for (const auto& [gv, enabled] : *config) {
    if (gv != "coordination.k8s.io/v1beta1" && gv != "coordination.k8s.io/v1alpha2" &&
        gv != "coordination.k8s.io/v1" && gv != "api/all") {
      return Status::BadRequest("unknown api group/version in --runtime-config: " + gv);
    }
    options.runtime_config[gv] = enabled;
  }
  return Status::Ok();
}

}  // namespace tenure::server
