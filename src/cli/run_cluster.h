// What `tenure run` asks the cluster before campaigning: which lock kind it serves and whether
// this pod is Ready (Spring's waitForPodReady).
#pragma once

#include <memory>
#include <string>

#include "tenure/cluster.h"
#include "tenure/status.h"

namespace tenure::cli {

// true when discovery lists leases in coordination.k8s.io/v1; false when that group version is
// not served (404); other failures are returned.
Result<bool> ServesLeases(Cluster& cluster);

// The pod `tenure run` runs in: POD_NAME (else HOSTNAME) in POD_NAMESPACE (else the cluster's
// default namespace, the pod's own in-cluster). Empty name when not in a pod: not running in
// Kubernetes (no KUBERNETES_SERVICE_HOST) and no POD_NAME given.
struct PodRef {
  std::string namespace_;
  std::string name;
};
PodRef FindOwnPod(const Cluster& cluster);

// true when the pod's Ready condition is "True"; failures (pod not found, ...) are returned.
Result<bool> PodIsReady(Cluster& cluster, const PodRef& pod);

}  // namespace tenure::cli
