// Server: `tenure serve` as a library object. Opens the store in the data folder, ensures the
// credentials and the built-in namespaces, and serves the Kubernetes API until Stop().
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/admission.h"
#include "server/audit_log.h"
#include "server/audit_policy.h"
#include "server/credentials.h"
#include "server/discovery.h"
#include "server/local_collection_watch.h"
#include "server/token_file.h"
#include "server/web_app.h"
#include "store/etcd_store.h"
#include "tenure/status.h"

namespace tenure::server {

struct ServerOptions {
  std::string data_dir;
  std::string address = "127.0.0.1";
  uint16_t port = 6443;  // 0: any free port
  bool tls = true;       // plain HTTP is for loopback tests only
  size_t watch_history = 100000;
  // No more history than this many writes per stored object beyond 10,000 (0: no such bound);
  // see WatchHub::CapacityFor.
  size_t watch_history_per_object = 2;
  // Writes younger than this stay beyond that bound (WatchHub::SetHistoryMinAge).
  std::chrono::nanoseconds watch_history_min_age = std::chrono::seconds(10);
  // HTTP threads; 0: one per core. With a store whose reads block (etcd), reads run on pools of
  // max(16, 4 per core) threads of their own (admission.h).
  int threads = 0;
  // Unsent bytes one watch may hold before the server ends it with 410 (the client relists).
  size_t max_watch_buffer_bytes = size_t{8} << 20;
  // A request not answered in this time gets 504 Timeout.
  std::chrono::milliseconds request_timeout{60000};
  AdmissionOptions admission;  // in-flight limits per priority level, the expensive pool
  // Where objects live: "sqlite" (<data_dir>/tenure.db, one server) or "etcd" (an etcd v3
  // cluster; several servers with the same etcd_prefix and the same data_dir credentials, i.e.
  // a shared or copied data folder, are one service). data_dir still holds the credentials.
  std::string store = "sqlite";
  store::EtcdStoreOptions etcd;  // endpoints, prefix, TLS files (watch history: watch_history)
  // Kubernetes' switches: the LeaseCandidate API is served at a version only when the gate is
  // on and the version is enabled. tenure defaults both on (it is a coordination server).
  bool coordinated_leader_election = true;
  std::map<std::string, bool> runtime_config;  // "coordination.k8s.io/v1beta1" -> enabled
  // Users of a static token file (--token-auth-file), besides the data folder's admin token.
  TokenFile tokens;
  // The server certificate's extra names, or the user's own certificate (credentials.h).
  TlsOptions certificate;
  // CA bundles whose client certificates authenticate users (kube's --client-ca-file), besides
  // the data folder's CA, which always does (`tenure issue-user` signs with it).
  std::vector<std::string> client_ca_files;
  // The audit log (kube's --audit-log-*): none when unset; the policy says what it records
  // (unset: every request at Metadata).
  std::optional<AuditLogOptions> audit_log;
  std::optional<AuditPolicy> audit_policy;
  // The Kubernetes release the server presents itself as (/version, deprecation warnings).
  EmulatedVersion version;
};

// Parses "--feature-gates" ("CoordinatedLeaderElection=true,ConsistentListFromCache=false") and
// "--runtime-config" ("coordination.k8s.io/v1beta1=true,...") values into options.
Status ApplyFeatureGates(const std::string& text, ServerOptions& options);
Status ApplyRuntimeConfig(const std::string& text, ServerOptions& options);

// The kinds and versions a server with these options serves: every kind of the registry at
// every version, LeaseCandidate only while the gate is on and at the versions the runtime
// config leaves enabled. Discovery and OpenAPI list exactly these.
std::vector<ServedVersion> ServedVersions(const ServerOptions& options);
// "host:port" as clients reach the server ("127.0.0.1:6443"): /api's serverAddressByClientCIDRs.
std::string ServerAddress(const ServerOptions& options);

class Server {
 public:
  static Result<std::unique_ptr<Server>> Start(const ServerOptions& options);
  virtual ~Server() = default;
  virtual uint16_t port() const = 0;
  virtual std::string url() const = 0;  // "https://127.0.0.1:6443"
  virtual const Credentials& credentials() const = 0;
  // The bearer token of the coordination controller's own user
  // (kCoordinationControllerUser), made at start and kept in memory only: the controller acts
  // with the rights the default policy gives that user, not as the admin.
  virtual const std::string& coordination_token() const = 0;
  // The bearer tokens of the dashboard's reader (kDashboardReaderUser) and of the identity
  // Lease's writer (kServerIdentityUser), made at start and kept in memory only.
  virtual const std::string& dashboard_token() const = 0;
  virtual const std::string& identity_token() const = 0;
  // Serves `app` under its path from now on, behind authentication (web_app.h).
  virtual void Mount(std::shared_ptr<WebApp> app) = 0;
  // Every object of `kind` at `version`, from this server's store, in process
  // (local_collection_watch.h): for a part of the server that reads all of them, such as the
  // dashboard, without a watch over loopback. Unavailable once the server has stopped.
  virtual Result<std::unique_ptr<LocalCollectionWatch>> WatchCollection(
      const api::KindInfo& kind, std::string version, LocalCollectionWatch::Handler handler) = 0;
  // Appends a section to GET /metrics (see metrics_endpoint.h): Prometheus metric families
  // rendered per scrape; `render` must stay callable until Stop() has returned.
  virtual void AddMetrics(std::function<std::string()> render) = 0;
  virtual void Stop() = 0;
};

}  // namespace tenure::server
