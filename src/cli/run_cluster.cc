// What `tenure run` asks the cluster before campaigning: ServesLeases, FindOwnPod, PodIsReady.
#include "cli/run_cluster.h"

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "api/api_paths.h"
#include "api/kinds.h"
#include "client/kube_client.h"
#include "election/cluster_access.h"

namespace tenure::cli {

namespace {

constexpr auto kTimeout = std::chrono::seconds(10);

// core/v1 Pods: not a kind tenure serves, but one `tenure run` reads on a real cluster.
const api::KindInfo& PodKind() {
  static const api::KindInfo pods{.group = "",
                                  .versions = {"v1"},
                                  .kind = "Pod",
                                  .list_kind = "PodList",
                                  .resource = "pods",
                                  .singular = "pod"};
  return pods;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Result<bool> ServesLeases(Cluster& cluster) {
  auto list = KubeClientOf(cluster).Call("GET", api::GroupVersionPath(api::LeaseKind(), "v1"),
                                         nullptr, kTimeout);
  if (!list.ok()) {
    if (list.status().IsNotFound()) return false;
    return list.status();
  }
  for (const auto& resource : list->value("resources", nlohmann::json::array())) {
    if (resource.value("name", "") == "leases") return true;
  }
  return false;
}

PodRef FindOwnPod(const Cluster& cluster) {
  PodRef pod;
  pod.name = Env("POD_NAME");
  if (pod.name.empty() && !Env("KUBERNETES_SERVICE_HOST").empty()) pod.name = Env("HOSTNAME");
  pod.namespace_ = Env("POD_NAMESPACE");
  if (pod.namespace_.empty()) pod.namespace_ = cluster.default_namespace();
  return pod;
}

Result<bool> PodIsReady(Cluster& cluster, const PodRef& pod) {
  auto object = KubeClientOf(cluster).Call(
      "GET", api::ObjectPath(PodKind(), "v1", pod.namespace_, pod.name), nullptr, kTimeout);
  if (!object.ok()) return object.status();
  const auto& status = object->value("status", nlohmann::json::object());
  for (const auto& condition : status.value("conditions", nlohmann::json::array())) {
    if (condition.value("type", "") == "Ready") return condition.value("status", "") == "True";
  }
  return false;
}

}  // namespace tenure::cli
