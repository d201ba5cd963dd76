// LeaseApi: the Lease, LeaseCandidate and Event calls of the inspection commands; ParseLeaseRef.
#include "cli/lease_api.h"

#include <algorithm>

#include "api/api_paths.h"
#include "api/codec.h"
#include "api/kinds.h"
#include "api/time.h"
#include "client/kube_client.h"
#include "election/cluster_access.h"

namespace tenure::cli {

namespace {

using nlohmann::json;
constexpr auto kCallTimeout = std::chrono::seconds(15);

}  // namespace

Result<LeaseApi> LeaseApi::Connect(const ConnectionFlags& flags) {
  ClusterOptions options{.kubeconfig = flags.kubeconfig, .context = flags.context};
  if (!flags.servers.empty()) options.servers = {flags.servers};
  auto cluster = Cluster::Connect(options);
  if (!cluster.ok()) return cluster.status();
  return LeaseApi(std::move(*cluster));
}

std::string LeaseApi::server() const { return KubeClientOf(*cluster_).config().server; }

Result<json> LeaseApi::Call(const std::string& method, const std::string& path, const json* body) {
  return KubeClientOf(*cluster_).Call(method, path, body, kCallTimeout);
}

std::string LeaseApi::LeasesPath(const std::string& ns) {
  return api::CollectionPath(api::LeaseKind(), "v1", ns);
}

Result<json> LeaseApi::ListLeases(const std::string& ns) { return Call("GET", LeasesPath(ns)); }

Result<json> LeaseApi::GetLease(const std::string& ns, const std::string& name) {
  return Call("GET", api::ObjectPath(api::LeaseKind(), "v1", ns, name));
}

Result<api::Lease> LeaseApi::ReplaceLease(const api::Lease& lease) {
  json body = api::ToJson(lease);
  auto reply =
      Call("PUT",
           api::ObjectPath(api::LeaseKind(), "v1", lease.metadata.namespace_, lease.metadata.name),
           &body);
  if (!reply.ok()) return reply.status();
  return api::LenientLease(*reply);  // written: what the reply holds cannot undo that
}

Result<std::string> LeaseApi::CandidateVersion() {
  auto version = client::ServedLeaseCandidateVersion(KubeClientOf(*cluster_), kCallTimeout);
  if (version.status().IsNotFound()) return std::string();  // coordinated election is off there
  return version;
}

Result<json> LeaseApi::ListCandidates(const std::string& version, const std::string& ns) {
  return Call("GET", api::CollectionPath(api::LeaseCandidateKind(), version, ns));
}

Result<json> LeaseApi::ListEvents(const std::string& ns, const std::string& kind,
                                  const std::string& name) {
  std::string selector = "involvedObject.kind=" + kind + ",involvedObject.name=" + name +
                         ",involvedObject.namespace=" + ns;
  auto list = Call("GET", api::WithQuery(api::CollectionPath(api::EventKind(), "v1", ns),
                                         {{"fieldSelector", selector}}));
  if (!list.ok()) return list.status();
  json items = list->value("items", json::array());
  auto when = [](const json& e) {
    // Events carry lastTimestamp (core/v1 recorders) or eventTime (events/v1 recorders).
    for (const char* field : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
      auto it = e.find(field);
      if (it == e.end() || !it->is_string()) continue;
      if (auto t = api::ParseTime(it->get<std::string>())) return *t;
    }
    return api::Timestamp{};
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](const json& a, const json& b) { return when(a) < when(b); });
  return items;
}

Result<std::pair<std::string, std::string>> ParseLeaseRef(const std::string& text,
                                                          const std::string& fallback_ns) {
  size_t slash = text.find('/');
  std::pair<std::string, std::string> ref;
  if (slash == std::string::npos) {
    ref = {fallback_ns, text};
  } else {
    ref = {text.substr(0, slash), text.substr(slash + 1)};
  }
  if (ref.first.empty() || ref.second.empty() || ref.second.find('/') != std::string::npos) {
    return Status::BadRequest("\"" + text + "\" is not NAMESPACE/NAME");
  }
  return ref;
}

std::string DescribeError(const Status& status, const std::string& server) {
  if (status.reason() == Reason::kServiceUnavailable || status.reason() == Reason::kTimeout) {
    // Transport failures carry no server answer; a 503/504 from the server has a Status body
    // whose message already says so, and reads fine either way.
    return "cannot reach the API server at " + server + ": " + status.message();
  }
  return "Error from server (" + std::string(status.reason_name()) + "): " + status.message();
}

}  // namespace tenure::cli
