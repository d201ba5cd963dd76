// LeaseApi: the reads and writes of the inspection commands (get, describe, watch, release),
// on standard Kubernetes API paths only, so they work against kube-apiserver as against
// `tenure serve`. LeaseCandidates are found by discovery (v1beta1, then v1alpha2); a server
// that serves neither is reported, not treated as an error.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "api/types.h"
#include "tenure/cluster.h"
#include "tenure/status.h"

namespace tenure::cli {

// Where the API server is: the same kubeconfig and context kubectl would use.
struct ConnectionFlags {
  std::string kubeconfig;  // "" : $KUBECONFIG or ~/.kube/config (or in-cluster)
  std::string context;     // "" : the current context
  std::string servers;     // "" : the kubeconfig's server; else URL[,URL...] (replicas)
};

class LeaseApi {
 public:
  static Result<LeaseApi> Connect(const ConnectionFlags& flags);
  explicit LeaseApi(std::shared_ptr<Cluster> cluster) : cluster_(std::move(cluster)) {}

  // The namespace of the kubeconfig context ("default" when it names none).
  std::string default_namespace() const { return cluster_->default_namespace(); }
  // The server's URL, for messages.
  std::string server() const;
  const std::shared_ptr<Cluster>& cluster() const { return cluster_; }

  // A LeaseList; `ns` "" lists every namespace.
  Result<nlohmann::json> ListLeases(const std::string& ns);
  Result<nlohmann::json> GetLease(const std::string& ns, const std::string& name);
  // PUT of the lease (a compare-and-swap at its metadata.resourceVersion); the server's reply.
  Result<api::Lease> ReplaceLease(const api::Lease& lease);

  // The served LeaseCandidate version ("v1beta1" or "v1alpha2"), or "" when none is served.
  Result<std::string> CandidateVersion();
  // A LeaseCandidateList at `version`; `ns` "" lists every namespace.
  Result<nlohmann::json> ListCandidates(const std::string& version, const std::string& ns);
  // The Events about one object (core/v1, field selector on involvedObject): a JSON array,
  // oldest first.
  Result<nlohmann::json> ListEvents(const std::string& ns, const std::string& kind,
                                    const std::string& name);

  static std::string LeasesPath(const std::string& ns);  // "" : every namespace

 private:
  Result<nlohmann::json> Call(const std::string& method, const std::string& path,
                              const nlohmann::json* body = nullptr);
  std::shared_ptr<Cluster> cluster_;
};

// "NS/NAME" or "NAME" (namespace `fallback_ns`) -> {namespace, name}; BadRequest when malformed.
Result<std::pair<std::string, std::string>> ParseLeaseRef(const std::string& text,
                                                          const std::string& fallback_ns);

// A failed call as the user should read it: kubectl's "Error from server (NotFound): ..." for a
// server's answer, "cannot reach the API server at URL: ..." when there was none.
std::string DescribeError(const Status& status, const std::string& server);

}  // namespace tenure::cli
