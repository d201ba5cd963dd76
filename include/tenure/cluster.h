// Cluster: a connection to a Kubernetes API server (kube-apiserver or `tenure serve`), shared by
// every lock and elector made from it: they share its keep-alive connections and, per
// collection, one watch stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tenure/status.h"

namespace tenure {

struct ClusterOptions {
  // kubeconfig file ("" : $KUBECONFIG or ~/.kube/config) and context ("" : current).
  std::string kubeconfig;
  std::string context;
  // Use the pod's service account (default: when KUBERNETES_SERVICE_HOST is set).
  bool in_cluster_if_available = true;
  // API server URLs replacing the kubeconfig's (or in-cluster) server, each entry one URL or a
  // comma-separated list ("https://10.0.0.1:6443,https://10.0.0.2:6443"): replicas of one
  // service sharing its CA and credentials. Requests go to one until it fails in transport,
  // then to the next; reads and writes that never left are retried there at once, so a leader
  // keeps renewing through another replica while its lease is valid. Each endpoint gets an even
  // share of what is left of a call's timeout, so a replica that hangs (paused, or cut off
  // while its connection stays open) cannot take all of it; a write sent there that gets no
  // answer in its share fails with Timeout (it is not repeated: it may have been applied) and
  // the next call goes to the next replica. Empty: the loaded server.
  std::vector<std::string> servers;
  // Requests in flight at once (1..1024): each has a kept-alive connection of its own. More
  // wait for one, the one with the earliest deadline first. Every elector, lock and candidate
  // on this Cluster shares them; raise it for a process that leads thousands of leases, so that
  // renewals and a burst of takeovers do not queue (the server commits concurrent writes
  // together).
  size_t max_connections = 32;
};

class Cluster {
 public:
  static Result<std::shared_ptr<Cluster>> Connect(const ClusterOptions& options = {});
  // The namespace of the kubeconfig context or of the pod ("default" otherwise).
  std::string default_namespace() const;
  // Requests sent so far (watch streams count once per start).
  uint64_t requests() const;

  // The library's own code reaches the connection through ClusterAccess (not public).
  struct Connection;
  explicit Cluster(std::shared_ptr<Connection> connection);
  ~Cluster();

 private:
  friend struct ClusterAccess;
  std::shared_ptr<Connection> connection_;
};

}  // namespace tenure
