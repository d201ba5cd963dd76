#include "tenure/cluster.h"

#include "client/kube_client.h"

namespace tenure {

Result<std::shared_ptr<Cluster>> Cluster::Connect(const ClusterOptions& options) {
  Result<client::ClusterConfig> config = Status::Internal("unset");
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  if (options.in_cluster_if_available && options.kubeconfig.empty() && host && *host) {
    config = client::LoadInClusterConfig();
  } else {
    config = client::LoadKubeconfig(options.kubeconfig, options.context);
  }
  if (!config.ok()) return config.status();
  if (Status s = client::UseServers(*config, options.servers); !s.ok()) return s;
  auto kube = client::KubeClient::Create(std::move(*config));
  if (!kube.ok()) return kube.status();
  return std::make_shared<Cluster>(std::move(*kube));
}

std::string Cluster::default_namespace() const { return client_->config().namespace_; }

uint64_t Cluster::requests() const { return client_->requests(); }

}  // namespace tenure
