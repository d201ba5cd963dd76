// Exec credential plugins, as client-go runs them (client.authentication.k8s.io v1 and v1beta1):
// how EKS, GKE, AKS and OIDC logins hand a client its token or client certificate.
//
// - The kubeconfig's user.exec names a command, its args and extra env, the API version of the
//   ExecCredential it speaks, an installHint shown when the command is missing,
//   provideClusterInfo (the cluster's server, CA and TLS server name go to the plugin in
//   KUBERNETES_EXEC_INFO) and interactiveMode (Never, IfAvailable, Always: whether the plugin
//   may read this process's terminal; required with v1, IfAvailable by default with v1beta1).
// - The plugin prints an ExecCredential whose status holds a token, or a client certificate and
//   key (PEM), and optionally expirationTimestamp. The credential is cached until then; a 401
//   from the server drops it so the next request runs the plugin again.
// - A non-interactive plugin's stderr is captured and logged (and quoted when it fails); stdin is
//   /dev/null. An interactive one shares this process's terminal.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tenure/status.h"

namespace tenure::client {

struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  std::string command;      // a path (relative ones resolved against the kubeconfig) or a name
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode;  // Never, IfAvailable, Always
  // KUBERNETES_EXEC_INFO's spec.cluster when provide_cluster_info (JSON text, built from the
  // kubeconfig's cluster by the loader).
  std::string cluster_json;
  // How long a run may take before it is killed.
  std::chrono::milliseconds timeout{60000};
};

// client-go's checks of an exec section: a supported apiVersion, a command, interactiveMode
// (required with v1, one of Never, IfAvailable, Always). Errors name the kubeconfig key.
Status ValidateExecConfig(const ExecConfig& config, const std::string& user);

struct ExecCredential {
  std::string token;
  std::string client_certificate_data;  // PEM
  std::string client_key_data;          // PEM
  std::optional<std::chrono::system_clock::time_point> expiration;
};

// Reads the plugin's stdout as client-go does: an ExecCredential of the configured apiVersion,
// with a status holding a token or both certificate and key.
Result<ExecCredential> ParseExecCredential(const std::string& output,
                                           const std::string& api_version);

// The KUBERNETES_EXEC_INFO value the plugin gets.
std::string ExecInfo(const ExecConfig& config, bool interactive);

// Runs the plugin once (posix_spawn; PATH lookup for a bare name) and parses what it printed.
Result<ExecCredential> RunExecPlugin(const ExecConfig& config);

// The credential of one kubeconfig user: the plugin's last answer until it expires or a 401
// invalidates it. Thread-safe; one run at a time (callers meanwhile wait for its answer).
class ExecCredentialCache {
 public:
  explicit ExecCredentialCache(ExecConfig config) : config_(std::move(config)) {}
  // The cached credential, or a new one from the plugin.
  Result<ExecCredential> Get();
  // The server refused `token` (or the certificate when `token` is empty): run the plugin again
  // on the next Get, unless another caller already has.
  void Invalidate(const std::string& token);
  // Plugin runs so far.
  int runs() const;

 private:
  ExecConfig config_;
  mutable std::mutex mu_;
  std::optional<ExecCredential> cached_;
  int runs_ = 0;
};

}  // namespace tenure::client
