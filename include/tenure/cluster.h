// Cluster: a connection to a Kubernetes API server (kube-apiserver or `tenure serve`), shared by
// every lock and elector made from it: they share its keep-alive connections and, per
// collection, one watch stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tenure/status.h"

namespace tenure {

namespace client {
class KubeClient;
}

struct ClusterOptions {
  // kubeconfig file ("" : $KUBECONFIG or ~/.kube/config) and context ("" : current).
  std::string kubeconfig;
  std::string context;
  // Use the pod's service account (default: when KUBERNETES_SERVICE_HOST is set).
  bool in_cluster_if_available = true;
};

class Cluster {
 public:
  static Result<std::shared_ptr<Cluster>> Connect(const ClusterOptions& options = {});
  // The namespace of the kubeconfig context or of the pod ("default" otherwise).
  std::string default_namespace() const;
  // Requests sent so far (watch streams count once per start).
  uint64_t requests() const;
  client::KubeClient& client() const { return *client_; }
  std::shared_ptr<client::KubeClient> shared_client() const { return client_; }

  explicit Cluster(std::shared_ptr<client::KubeClient> client) : client_(std::move(client)) {}

 private:
  std::shared_ptr<client::KubeClient> client_;
};

}  // namespace tenure
