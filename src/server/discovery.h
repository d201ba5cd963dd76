// API discovery documents: what kubectl and client-go read before anything else (/version, /api,
// /apis, /api/v1, /apis/<group>/<version>, and aggregated discovery for /api and /apis).
//
// Pure functions of the set of served (kind, version) pairs; the server decides which versions
// are enabled (e.g. LeaseCandidate only with coordinated election on) and passes the same set to
// every function here and to openapi.h, so discovery and OpenAPI never disagree. Versions of a
// group are ordered by Kubernetes version priority (v1 > v1beta1 > v1alpha2); the first is the
// preferred version.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"

namespace tenure::server {

// One kind served at one version. `version` must outlive the vector (KindInfo::versions'
// string_views do).
struct ServedVersion {
  const api::KindInfo* kind = nullptr;
  std::string_view version;
};

// Every kind of the registry at every version it can be served at (inline so that code not
// calling it does not need the registry's implementation).
inline std::vector<ServedVersion> AllServedVersions() {
  std::vector<ServedVersion> served;
  for (const api::KindInfo* kind : api::AllKinds()) {
    for (std::string_view version : kind->versions) served.push_back({kind, version});
  }
  return served;
}

// The Content-Type of an aggregated discovery reply. client-go recognizes the reply by it (the
// g, v and as parameters), so reply with exactly this string.
inline constexpr std::string_view kAggregatedDiscoveryContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
// The same for v2beta1, which kubectl 1.26 - 1.29 ask for (newer ones ask for v2 first).
inline constexpr std::string_view kAggregatedDiscoveryV2Beta1ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

// The aggregated discovery version ("v2" or "v2beta1") the Accept header of a GET /api or GET
// /apis asks for, v2 winning when both are listed; nullopt when it asks for none (reply with
// the legacy APIVersions / APIGroupList as application/json).
std::optional<std::string_view> AggregatedDiscoveryVersion(std::string_view accept_header);
// True when AggregatedDiscoveryVersion(accept_header) has a value.
bool WantsAggregatedDiscovery(std::string_view accept_header);
// kAggregatedDiscoveryContentType or kAggregatedDiscoveryV2Beta1ContentType.
std::string_view AggregatedDiscoveryContentType(std::string_view discovery_version);

// GET /api: {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[...]}.
// `server_address` is "host:port" as clients reach the server; empty omits the CIDR list.
nlohmann::json ApiVersions(const std::vector<ServedVersion>& served,
                           std::string_view server_address);

// GET /apis: APIGroupList of every non-core group with its versions and preferred version.
nlohmann::json ApiGroupList(const std::vector<ServedVersion>& served);

// GET /apis/<group>: the APIGroup of one group; nullopt when the group is not served (404).
std::optional<nlohmann::json> ApiGroup(const std::vector<ServedVersion>& served,
                                       std::string_view group);

// GET /api/v1 (group "") or /apis/<group>/<version>: APIResourceList; nullopt when nothing is
// served at that group-version (reply 404 NotFound).
std::optional<nlohmann::json> ApiResourceList(const std::vector<ServedVersion>& served,
                                              std::string_view group, std::string_view version);

// Aggregated discovery (apidiscovery.k8s.io APIGroupDiscoveryList) for GET /api (`core` true:
// the "" group) or GET /apis (`core` false: every other group). `discovery_version` is the
// value AggregatedDiscoveryVersion returned; reply with AggregatedDiscoveryContentType(it).
nlohmann::json AggregatedDiscovery(const std::vector<ServedVersion>& served, bool core,
                                   std::string_view discovery_version = "v2");

// What GET /version reports. kubectl dispatchers pick the kubectl matching `minor`.
struct EmulatedVersion {
  int major = 1;
  int minor = 33;
  int patch = 0;
  std::string git_commit = "0000000000000000000000000000000000000000";
  std::string build_date = "1970-01-01T00:00:00Z";
};

// GET /version: {"major":"1","minor":"33","gitVersion":"v1.33.0",...,"platform":"linux/amd64"}.
nlohmann::json VersionInfo(const EmulatedVersion& version = {});

// Kubernetes version priority ("v1" > "v1beta2" > "v1beta1" > "v1alpha1" > non-kube strings):
// negative when `a` sorts before `b` (is preferred), 0 when equal, positive otherwise.
int CompareKubeVersions(std::string_view a, std::string_view b);

}  // namespace tenure::server
