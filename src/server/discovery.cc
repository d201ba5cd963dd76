// API discovery: /version, /api, /apis, group-version resource lists, aggregated v2/v2beta1.
#include "server/discovery.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>

namespace tenure::server {
namespace {

using nlohmann::json;

std::string GroupVersion(std::string_view group, std::string_view version) {
  if (group.empty()) return std::string(version);
  return std::string(group) + "/" + std::string(version);
}

// kube-apiserver's storageVersionHash: base64 of the first 8 bytes of
// sha256("<group>/<version>/<kind>") of the storage (preferred) version.
std::string StorageVersionHash(const api::KindInfo& kind) {
  std::string_view version = kind.versions.empty() ? std::string_view("v1") : kind.versions[0];
  std::string input =
      std::string(kind.group) + "/" + std::string(version) + "/" + std::string(kind.kind);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  unsigned char encoded[16] = {};
  int n = EVP_EncodeBlock(encoded, digest, 8);
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<size_t>(n));
}

json Names(const std::vector<std::string_view>& names) {
  json out = json::array();
  for (std::string_view name : names) out.push_back(std::string(name));
  return out;
}

json Verbs(const api::KindInfo& kind) { return Names(kind.verbs); }

json ShortNames(const api::KindInfo& kind) {
  json names = json::array();
  for (std::string_view name : kind.short_names) names.push_back(std::string(name));
  return names;
}

// The versions served for `group`, most preferred first.
std::vector<std::string_view> VersionsOf(const std::vector<ServedVersion>& served,
                                         std::string_view group) {
  std::vector<std::string_view> versions;
  for (const ServedVersion& s : served) {
    if (s.kind == nullptr || s.kind->group != group) continue;
    if (std::find(versions.begin(), versions.end(), s.version) == versions.end()) {
      versions.push_back(s.version);
    }
  }
  std::stable_sort(versions.begin(), versions.end(), [](std::string_view a, std::string_view b) {
    return CompareKubeVersions(a, b) < 0;
  });
  return versions;
}

// The non-core groups in order of first appearance.
std::vector<std::string_view> GroupsOf(const std::vector<ServedVersion>& served) {
  std::vector<std::string_view> groups;
  for (const ServedVersion& s : served) {
    if (s.kind == nullptr || s.kind->group.empty()) continue;
    if (std::find(groups.begin(), groups.end(), s.kind->group) == groups.end()) {
      groups.push_back(s.kind->group);
    }
  }
  return groups;
}

// The kinds served at group/version, sorted by resource name.
std::vector<const api::KindInfo*> KindsAt(const std::vector<ServedVersion>& served,
                                          std::string_view group, std::string_view version) {
  std::vector<const api::KindInfo*> kinds;
  for (const ServedVersion& s : served) {
    if (s.kind == nullptr || s.kind->group != group || s.version != version) continue;
    if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end()) kinds.push_back(s.kind);
  }
  std::sort(kinds.begin(), kinds.end(), [](const api::KindInfo* a, const api::KindInfo* b) {
    return a->resource < b->resource;
  });
  return kinds;
}

json GroupJson(const std::vector<ServedVersion>& served, std::string_view group) {
  json versions = json::array();
  for (std::string_view version : VersionsOf(served, group)) {
    versions.push_back(
        {{"groupVersion", GroupVersion(group, version)}, {"version", std::string(version)}});
  }
  json out = {{"name", std::string(group)}, {"versions", versions}};
  if (!versions.empty()) out["preferredVersion"] = versions[0];
  return out;
}

struct ParsedVersion {
  bool kube = false;
  int major = 0;
  int stability = 0;  // 2 GA, 1 beta, 0 alpha
  int minor = 0;
};

ParsedVersion ParseKubeVersion(std::string_view v) {
  ParsedVersion p;
  if (v.size() < 2 || v[0] != 'v' || !std::isdigit(static_cast<unsigned char>(v[1]))) return p;
  size_t i = 1;
  auto number = [&](int* out) {
    if (i >= v.size() || !std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '0') {
      return false;
    }
    int value = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
      value = value * 10 + (v[i] - '0');
      ++i;
    }
    *out = value;
    return true;
  };
  if (!number(&p.major)) return p;
  if (i == v.size()) {
    p.kube = true;
    p.stability = 2;
    return p;
  }
  std::string_view rest = v.substr(i);
  if (rest.substr(0, 4) == "beta") {
    p.stability = 1;
    i += 4;
  } else if (rest.substr(0, 5) == "alpha") {
    p.stability = 0;
    i += 5;
  } else {
    return p;
  }
  if (!number(&p.minor) || i != v.size()) return p;
  p.kube = true;
  return p;
}

}  // namespace

int CompareKubeVersions(std::string_view a, std::string_view b) {
  ParsedVersion pa = ParseKubeVersion(a);
  ParsedVersion pb = ParseKubeVersion(b);
  if (pa.kube != pb.kube) return pa.kube ? -1 : 1;
  if (!pa.kube) return a.compare(b);
  if (pa.stability != pb.stability) return pa.stability > pb.stability ? -1 : 1;
  if (pa.major != pb.major) return pa.major > pb.major ? -1 : 1;
  if (pa.minor != pb.minor) return pa.minor > pb.minor ? -1 : 1;
  return 0;
}

std::optional<std::string_view> AggregatedDiscoveryVersion(std::string_view accept_header) {
  bool v2 = false;
  bool v2beta1 = false;
  while (!accept_header.empty()) {
    size_t comma = accept_header.find(',');
    std::string_view media = accept_header.substr(0, comma);
    accept_header =
        comma == std::string_view::npos ? std::string_view() : accept_header.substr(comma + 1);
    // Split "type;param=value;..." and compare case-insensitively, ignoring spaces.
    std::string type;
    std::string g, v, as;
    size_t start = 0;
    bool first = true;
    while (start <= media.size()) {
      size_t semi = media.find(';', start);
      std::string_view part =
          media.substr(start, semi == std::string_view::npos ? media.npos : semi - start);
      std::string clean;
      for (char c : part) {
        if (c != ' ' && c != '\t') clean += c;
      }
      if (first) {
        for (char& c : clean) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        type = clean;
        first = false;
      } else if (size_t eq = clean.find('='); eq != std::string::npos) {
        std::string key = clean.substr(0, eq);
        std::string value = clean.substr(eq + 1);
        if (key == "g") g = value;
        if (key == "v") v = value;
        if (key == "as") as = value;
      }
      if (semi == std::string_view::npos) break;
      start = semi + 1;
    }
    if (type != "application/json" || g != "apidiscovery.k8s.io" || as != "APIGroupDiscoveryList") {
      continue;
    }
    if (v == "v2") v2 = true;
    if (v == "v2beta1") v2beta1 = true;
  }
  if (v2) return "v2";
  if (v2beta1) return "v2beta1";
  return std::nullopt;
}

bool WantsAggregatedDiscovery(std::string_view accept_header) {
  return AggregatedDiscoveryVersion(accept_header).has_value();
}

std::string_view AggregatedDiscoveryContentType(std::string_view discovery_version) {
  return discovery_version == "v2beta1" ? kAggregatedDiscoveryV2Beta1ContentType
                                        : kAggregatedDiscoveryContentType;
}

json ApiVersions(const std::vector<ServedVersion>& served, std::string_view server_address) {
  json versions = json::array();
  for (std::string_view version : VersionsOf(served, "")) versions.push_back(std::string(version));
  json out = {{"kind", "APIVersions"}, {"versions", versions}};
  if (!server_address.empty()) {
    out["serverAddressByClientCIDRs"] = json::array(
        {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", std::string(server_address)}}});
  }
  return out;
}

json ApiGroupList(const std::vector<ServedVersion>& served) {
  json groups = json::array();
  for (std::string_view group : GroupsOf(served)) groups.push_back(GroupJson(served, group));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<json> ApiGroup(const std::vector<ServedVersion>& served, std::string_view group) {
  if (group.empty() || VersionsOf(served, group).empty()) return std::nullopt;
  json out = {{"kind", "APIGroup"}, {"apiVersion", "v1"}};
  out.update(GroupJson(served, group));
  return out;
}

std::optional<json> ApiResourceList(const std::vector<ServedVersion>& served,
                                    std::string_view group, std::string_view version) {
  auto kinds = KindsAt(served, group, version);
  if (kinds.empty()) return std::nullopt;
  json resources = json::array();
  for (const api::KindInfo* kind : kinds) {
    json resource = {{"name", std::string(kind->resource)},
                     {"singularName", std::string(kind->singular)},
                     {"namespaced", kind->namespaced},
                     {"kind", std::string(kind->kind)},
                     {"verbs", Verbs(*kind)},
                     {"storageVersionHash", StorageVersionHash(*kind)}};
    if (!kind->short_names.empty()) resource["shortNames"] = ShortNames(*kind);
    resources.push_back(std::move(resource));
    for (const api::KindInfo::Subresource& sub : kind->subresources) {
      json entry = {{"name", std::string(kind->resource) + "/" + std::string(sub.name)},
                    {"singularName", ""},
                    {"namespaced", kind->namespaced},
                    {"kind", std::string(sub.kind.empty() ? kind->kind : sub.kind)},
                    {"verbs", Names(sub.verbs)}};
      if (!sub.kind.empty()) {
        entry["group"] = std::string(sub.group);
        entry["version"] = std::string(sub.version);
      }
      resources.push_back(std::move(entry));
    }
  }
  return json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", GroupVersion(group, version)},
              {"resources", resources}};
}

json AggregatedDiscovery(const std::vector<ServedVersion>& served, bool core,
                         std::string_view discovery_version) {
  std::vector<std::string_view> groups;
  if (core) {
    if (!VersionsOf(served, "").empty()) groups.push_back("");
  } else {
    groups = GroupsOf(served);
  }
  json items = json::array();
  for (std::string_view group : groups) {
    json versions = json::array();
    for (std::string_view version : VersionsOf(served, group)) {
      json resources = json::array();
      for (const api::KindInfo* kind : KindsAt(served, group, version)) {
        json resource = {
            {"resource", std::string(kind->resource)},
            {"responseKind",
             {{"group", std::string(group)},
              {"version", std::string(version)},
              {"kind", std::string(kind->kind)}}},
            {"scope", kind->namespaced ? "Namespaced" : "Cluster"},
            {"singularResource", std::string(kind->singular)},
            {"verbs", Verbs(*kind)},
        };
        if (!kind->short_names.empty()) resource["shortNames"] = ShortNames(*kind);
        if (!kind->subresources.empty()) {
          json subresources = json::array();
          for (const api::KindInfo::Subresource& sub : kind->subresources) {
            const bool own = sub.kind.empty();
            subresources.push_back({{"subresource", std::string(sub.name)},
                                    {"responseKind",
                                     {{"group", std::string(own ? group : sub.group)},
                                      {"version", std::string(own ? version : sub.version)},
                                      {"kind", std::string(own ? kind->kind : sub.kind)}}},
                                    {"verbs", Names(sub.verbs)}});
          }
          resource["subresources"] = std::move(subresources);
        }
        resources.push_back(std::move(resource));
      }
      versions.push_back(
          {{"version", std::string(version)}, {"resources", resources}, {"freshness", "Current"}});
    }
    json metadata = {{"creationTimestamp", nullptr}};
    if (!group.empty()) metadata["name"] = std::string(group);
    items.push_back({{"metadata", metadata}, {"versions", versions}});
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/" + std::string(discovery_version)},
          {"metadata", json::object()},
          {"items", items}};
}

json VersionInfo(const EmulatedVersion& version) {
#if defined(__x86_64__)
  constexpr const char* kArch = "amd64";
#elif defined(__aarch64__)
  constexpr const char* kArch = "arm64";
#else
  constexpr const char* kArch = "unknown";
#endif
  std::string minor = std::to_string(version.minor);
  return {
      {"major", std::to_string(version.major)},
      {"minor", minor},
      {"emulationMajor", std::to_string(version.major)},
      {"emulationMinor", minor},
      {"minCompatibilityMajor", std::to_string(version.major)},
      {"minCompatibilityMinor", std::to_string(version.minor > 0 ? version.minor - 1 : 0)},
      {"gitVersion",
       "v" + std::to_string(version.major) + "." + minor + "." + std::to_string(version.patch)},
      {"gitCommit", version.git_commit},
      {"gitTreeState", "clean"},
      {"buildDate", version.build_date},
      {"goVersion", "tenure"},
      {"compiler", "gc"},
      {"platform", std::string("linux/") + kArch},
  };
}

}  // namespace tenure::server
