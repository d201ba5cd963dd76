// ClusterAccess: the library's way from a public Cluster to the KubeClient behind it (locks,
// the candidate registrar, the controller and the CLI send their requests through it).
#pragma once

#include <memory>

#include "client/kube_client.h"
#include "tenure/cluster.h"

namespace tenure {

struct Cluster::Connection {
  std::shared_ptr<client::KubeClient> client;
};

struct ClusterAccess {
  static client::KubeClient& Client(const Cluster& cluster) { return *cluster.connection_->client; }
  static std::shared_ptr<client::KubeClient> SharedClient(const Cluster& cluster) {
    return cluster.connection_->client;
  }
  // A Cluster over a client made elsewhere (one with options Cluster::Connect does not offer).
  static std::shared_ptr<Cluster> Wrap(std::shared_ptr<client::KubeClient> client) {
    return std::make_shared<Cluster>(
        std::make_shared<Cluster::Connection>(Cluster::Connection{std::move(client)}));
  }
};

inline client::KubeClient& KubeClientOf(const Cluster& cluster) {
  return ClusterAccess::Client(cluster);
}

}  // namespace tenure
