// Cluster: a connection to an API server from kubeconfig or in-cluster configuration.
#include "tenure/cluster.h"

#include <string>

#include "election/cluster_access.h"

namespace tenure {

namespace {
constexpr size_t kMostConnections = 1024;
}  // namespace

Cluster::Cluster(std::shared_ptr<Connection> connection) : connection_(std::move(connection)) {}

Cluster::~Cluster() = default;

Result<std::shared_ptr<Cluster>> Cluster::Connect(const ClusterOptions& options) {
  if (options.max_connections < 1 || options.max_connections > kMostConnections) {
    return Status(Reason::kInvalid, "ClusterOptions.max_connections must be between 1 and " +
                                        std::to_string(kMostConnections) + ", not " +
                                        std::to_string(options.max_connections));
  }
  Result<client::ClusterConfig> config = Status::Internal("unset");
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  if (options.in_cluster_if_available && options.kubeconfig.empty() && host && *host) {
    config = client::LoadInClusterConfig();
  } else {
    config = client::LoadKubeconfig(options.kubeconfig, options.context);
  }
  if (!config.ok()) return config.status();
  if (Status s = client::UseServers(*config, options.servers); !s.ok()) return s;
  config->max_connections = options.max_connections;
  auto kube = client::KubeClient::Create(std::move(*config));
  if (!kube.ok()) return kube.status();
  return ClusterAccess::Wrap(std::move(*kube));
}

std::string Cluster::default_namespace() const { return connection_->client->config().namespace_; }

uint64_t Cluster::requests() const { return connection_->client->requests(); }

}  // namespace tenure
