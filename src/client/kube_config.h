// Where and how to reach a Kubernetes API server: from kubeconfig files (current context or a
// named one: server, CA as file or data, insecure-skip-tls-verify, tls-server-name, proxy-url,
// token or
// token file, client certificate and key as files or data, an exec credential plugin,
// namespace) or from inside a pod (KUBERNETES_SERVICE_HOST / _PORT and the service account's
// token, CA and namespace files).
//
// A KUBECONFIG list ("a:b:c") is merged as kubectl merges it: missing files are skipped; for
// clusters, users and contexts the first file that defines a name wins, and so does the first
// file that sets current-context. Relative paths are relative to the file that holds them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "client/exec_credential.h"
#include "client/http_connection.h"
#include "tenure/status.h"

namespace tenure::client {

struct ClusterConfig {
  Endpoint endpoint;        // host, port, TLS settings
  std::string path_prefix;  // from a server URL like https://host/prefix ("" usually)
  std::string token;        // a static bearer token
  std::string token_file;   // a token file, re-read when it changes (projected tokens rotate)
  std::optional<ExecConfig> exec;  // a credential plugin (token or client certificate)
  std::string proxy_url;           // the cluster's proxy-url ("": HTTPS_PROXY and NO_PROXY decide)
  std::string namespace_ = "default";
  std::string server;  // the server URL(s), for messages
  // Further replicas of the same API server (same CA and credentials), tried in turn when the
  // current one fails (see UseServers). Empty: `endpoint` is the only server.
  std::vector<Endpoint> more_endpoints;
  // With several servers, connecting to one gives up after this long, so that a blackholed
  // replica cannot eat a leader's renew deadline (a refused connection fails at once anyway).
  std::chrono::milliseconds connect_timeout{2000};
  // Requests in flight at once, each on a kept-alive connection of its own (ConnectionPool).
  size_t max_connections = 32;
};

// `endpoint` followed by `more_endpoints`.
std::vector<Endpoint> AllEndpoints(const ClusterConfig& config);

// Splits "https://a:6443, https://b:6443" at commas (spaces around entries are ignored); an
// empty entry is an error.
Result<std::vector<std::string>> SplitServerList(const std::string& text);

// Replaces the server of `config` (loaded from a kubeconfig or in-cluster) with the replicas at
// `urls`, each entry a URL or a comma-separated list of them. The replicas keep the loaded TLS
// settings and credentials and must share one scheme and path prefix. No URLs: no change.
Status UseServers(ClusterConfig& config, const std::vector<std::string>& urls);

// Parses "https://host:port/prefix" into endpoint and prefix (default ports 443 / 80).
Status ParseServerUrl(const std::string& url, ClusterConfig& config);

// `path` "" means $KUBECONFIG (a list, merged as above) or ~/.kube/config; an explicit `path`
// must exist. `context` "" means the current context.
Result<ClusterConfig> LoadKubeconfig(const std::string& path = "", const std::string& context = "");

// The pod's service account; `root` is /var/run/secrets/kubernetes.io/serviceaccount.
Result<ClusterConfig> LoadInClusterConfig(
    const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

// In-cluster when KUBERNETES_SERVICE_HOST is set, else the kubeconfig.
Result<ClusterConfig> LoadDefaultConfig();

}  // namespace tenure::client
