// `tenure serve`: its flags, the Server and the coordination Controller, until SIGINT/SIGTERM.
#include "cli/serve_command.h"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/listen_address.h"
#include "client/kube_client.h"
#include "coordination/controller.h"
#include "coordination/server_identity.h"
#include "dashboard/dashboard_app.h"
#include "dashboard/local_lease_feed.h"
#include "election/cluster_access.h"
#include "server/server.h"
#include "server/token_file.h"
#include "store/etcd_store.h"

namespace tenure::cli {

namespace {

struct ServeFlags {
  std::string data_dir;
  std::string listen = "127.0.0.1:6443";
  bool insecure_http = false;
  size_t watch_history = 100000;
  size_t watch_history_per_object = 2;
  int64_t watch_history_min_age = 10;
  std::string feature_gates;
  std::string runtime_config;
  std::string token_auth_file;
  std::vector<std::string> tls_sans;
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::vector<std::string> client_ca_files;
  std::string audit_log_path;
  std::string audit_policy_file;
  std::string audit_log_format = "json";
  int audit_log_maxsize = 100;
  int audit_log_maxbackup = 100;
  int audit_log_maxage = 366;
  int threads = 0;
  std::string store = "sqlite";
  std::string etcd_endpoints;
  store::EtcdStoreOptions etcd;        // prefix and TLS files; endpoints parsed from etcd_endpoints
  int etcd_compaction_interval = 300;  // seconds, kube-apiserver's default
  bool dashboard = true;
  int coordination_lease_duration = 5;        // seconds, Kubernetes' value
  double coordination_election_duration = 5;  // seconds, Kubernetes' value
};

}  // namespace

std::string DefaultDataDir() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/tenure";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.local/share/tenure";
  }
  return "tenure-data";
}

namespace {

Status ParseListen(const std::string& listen, server::ServerOptions& options) {
  Status s = ParseListenAddress(listen, options.address, options.port);
  if (!s.ok()) return Status::BadRequest("--listen: " + s.message());
  return Status::Ok();
}

// A client of this server over loopback, as the user of `token`.
Result<std::shared_ptr<client::KubeClient>> LoopbackClient(const server::Server& server,
                                                           const server::ServerOptions& options,
                                                           const std::string& token) {
  std::string host = options.address;
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  client::ClusterConfig config;
  std::string url =
      (options.tls ? "https://" : "http://") + host + ":" + std::to_string(server.port());
  if (Status s = client::ParseServerUrl(url, config); !s.ok()) return s;
  config.endpoint.tls.ca_file = server.credentials().server_trust_file;
  config.endpoint.tls.server_name = "localhost";  // the certificate names loopback only
  config.token = token;
  return client::KubeClient::Create(config);
}

// The coordinated election controller, when the gate is on and a LeaseCandidate version is
// served. It reaches this server over loopback as its own user with only the rights it needs
// (bootstrap_policy.h); nullptr when it does not run (the reason is printed).
std::unique_ptr<coordination::Controller> StartCoordination(const server::Server& server,
                                                            const server::ServerOptions& options,
                                                            const ServeFlags& flags,
                                                            std::string& summary) {
  if (!options.coordinated_leader_election) {
    summary = "off (feature gate)";
    return nullptr;
  }
  coordination::ControllerOptions controller_options;
  coordination::ElectionTimings& timings = controller_options.timings;
  timings.lease_duration = std::chrono::seconds(flags.coordination_lease_duration);
  timings.election_duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(flags.coordination_election_duration));
  auto controller = [&]() -> Result<std::unique_ptr<coordination::Controller>> {
    auto kube = LoopbackClient(server, options, server.coordination_token());
    if (!kube.ok()) return kube.status();
    return coordination::Controller::Start(ClusterAccess::Wrap(*kube), controller_options);
  }();
  if (!controller.ok()) {
    summary = "off (" + controller.status().message() + ")";
    return nullptr;
  }
  summary = "on (LeaseCandidate " + std::string((*controller)->candidate_version()) +
            ", controller " + std::string((*controller)->identity()) + ")";
  return std::move(*controller);
}

// The identity Lease kube-system/apiserver-<id> (kube's APIServerIdentity), written as its own
// user; null when it cannot be written (the reason is in `summary`).
std::unique_ptr<coordination::ServerIdentity> StartIdentity(const server::Server& server,
                                                            const server::ServerOptions& options,
                                                            std::string& summary) {
  auto kube = LoopbackClient(server, options, server.identity_token());
  if (!kube.ok()) {
    summary = "none (" + kube.status().message() + ")";
    return nullptr;
  }
  coordination::ServerIdentityOptions identity_options;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) identity_options.hostname = host;
  identity_options.port = server.port();
  auto identity = coordination::ServerIdentity::Start(*kube, identity_options);
  if (!identity.ok()) {
    summary = "none (" + identity.status().message() + ")";
    return nullptr;
  }
  summary = "kube-system/" + (*identity)->lease_name();
  return std::move(*identity);
}

// The dashboard under /dashboard (docs/dashboard.md): it reads the Leases from this server's
// store, everything else over loopback as its own reader user, and keeps the term history in
// the data folder. Null when it is off or
// cannot start (the reason is in `summary`).
std::shared_ptr<dashboard::DashboardApp> StartDashboard(server::Server& server,
                                                        const server::ServerOptions& options,
                                                        const ServeFlags& flags,
                                                        std::string& summary) {
  if (!flags.dashboard) {
    summary = "off (--dashboard=false)";
    return nullptr;
  }
  auto kube = LoopbackClient(server, options, server.dashboard_token());
  if (!kube.ok()) {
    summary = "off (" + kube.status().message() + ")";
    return nullptr;
  }
  dashboard::BoardOptions board_options;
  board_options.archive_path = options.data_dir + "/dashboard-terms.jsonl";
  board_options.source = "this tenure serve";
  board_options.lease_feed = dashboard::LocalLeaseFeed(server);
  auto board = dashboard::Board::Start(*kube, board_options);
  if (!board.ok()) {
    summary = "off (" + board.status().message() + ")";
    return nullptr;
  }
  auto app = std::make_shared<dashboard::DashboardApp>(
      std::shared_ptr<dashboard::Board>(std::move(*board)));
  server.Mount(app);
  summary = server.url() + app->prefix() + "/";
  return app;
}

int Serve(const ServeFlags& flags) {
  server::ServerOptions options;
  options.data_dir = flags.data_dir.empty() ? DefaultDataDir() : flags.data_dir;
  options.tls = !flags.insecure_http;
  options.watch_history = flags.watch_history;
  options.watch_history_per_object = flags.watch_history_per_object;
  options.watch_history_min_age = std::chrono::seconds(flags.watch_history_min_age);
  options.threads = flags.threads;
  options.store = flags.store;
  options.etcd = flags.etcd;
  options.etcd.compaction_interval = std::chrono::seconds(flags.etcd_compaction_interval);
  if (flags.store == "etcd") {
    auto endpoints = store::ParseEtcdEndpoints(flags.etcd_endpoints);
    if (!endpoints.ok()) {
      std::cerr << "tenure serve: --etcd-endpoints: " << endpoints.status().message() << "\n";
      return 2;
    }
    options.etcd.endpoints = std::move(*endpoints);
  } else if (!flags.etcd_endpoints.empty()) {
    std::cerr << "tenure serve: --etcd-endpoints needs --store etcd\n";
    return 2;
  }
  for (Status s :
       {ParseListen(flags.listen, options), ApplyFeatureGates(flags.feature_gates, options),
        ApplyRuntimeConfig(flags.runtime_config, options)}) {
    if (!s.ok()) {
      std::cerr << "tenure serve: " << s.message() << "\n";
      return 2;
    }
  }
  if (!flags.token_auth_file.empty()) {
    auto tokens = server::ReadTokenFile(flags.token_auth_file);
    if (!tokens.ok()) {
      std::cerr << "tenure serve: --token-auth-file: " << tokens.status().message() << "\n";
      return 2;
    }
    for (const std::string& warning : tokens->warnings) {
      std::cerr << "tenure serve: --token-auth-file: " << warning << "\n";
    }
    options.tokens = std::move(*tokens);
  }
  if (flags.tls_cert_file.empty() != flags.tls_private_key_file.empty()) {
    std::cerr << "tenure serve: --tls-cert-file and --tls-private-key-file go together\n";
    return 2;
  }
  for (const std::string& file : flags.client_ca_files) {
    if (!std::filesystem::exists(file)) {
      std::cerr << "tenure serve: --client-ca-file: cannot read " << file << "\n";
      return 2;
    }
  }
  options.certificate = {.alt_names = flags.tls_sans,
                         .cert_file = flags.tls_cert_file,
                         .key_file = flags.tls_private_key_file};
  options.client_ca_files = flags.client_ca_files;
  if (!flags.audit_policy_file.empty()) {
    if (flags.audit_log_path.empty()) {
      std::cerr << "tenure serve: --audit-policy-file needs --audit-log-path\n";
      return 2;
    }
    auto policy = server::ReadAuditPolicyFile(flags.audit_policy_file);
    if (!policy.ok()) {
      std::cerr << "tenure serve: --audit-policy-file: " << policy.status().message() << "\n";
      return 2;
    }
    options.audit_policy = std::move(*policy);
  }
  if (!flags.audit_log_path.empty()) {
    options.audit_log = server::AuditLogOptions{.path = flags.audit_log_path,
                                                .max_size_mb = flags.audit_log_maxsize,
                                                .max_backups = flags.audit_log_maxbackup,
                                                .max_age_days = flags.audit_log_maxage};
  }
  if (!options.tls && options.address != "127.0.0.1" && options.address != "::1" &&
      options.address != "localhost") {
    std::cerr << "tenure serve: --insecure-http is only allowed on a loopback address\n";
    return 2;
  }
  // Block the signals before any thread starts so that only sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = server::Server::Start(options);
  if (!server.ok()) {
    std::cerr << "tenure serve: " << server.status().ToString() << "\n";
    return 1;
  }
  // Everything the server runs is in place before it says it listens: whoever waits for that
  // line (scripts, tests) finds the controller and its /metrics families there.
  std::string coordination;
  auto controller = StartCoordination(**server, options, flags, coordination);
  if (controller) {
    // GET /metrics shows the controller's counters; the server stops before it is destroyed.
    (*server)->AddMetrics([c = controller.get()] { return c->metrics().Render(); });
  }
  std::string identity_summary;
  auto identity = StartIdentity(**server, options, identity_summary);
  std::string dashboard_summary;
  auto dashboard = StartDashboard(**server, options, flags, dashboard_summary);
  const auto& credentials = (*server)->credentials();
  std::cout << "tenure serve: listening on " << (*server)->url() << std::endl;
  std::cout << "  data folder: " << options.data_dir << "\n";
  if (options.store == "etcd") {
    std::cout << "  store:       etcd " << flags.etcd_endpoints << " (prefix "
              << options.etcd.prefix << ")\n";
  }
  std::cout << "  try:         KUBECONFIG=" << credentials.kubeconfig_file
            << " kubectl get leases -A\n";
  std::cout << "  identity:    " << identity_summary << "\n";
  std::cout << "  dashboard:   " << dashboard_summary << "\n";
  std::cout << "  coordinated leader election: " << coordination << std::endl;
  int signal = 0;
  sigwait(&signals, &signal);
  std::cout << "tenure serve: stopping (" << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ")"
            << std::endl;
  // The controller first, while the server can still take the release of its lease.
  if (controller) controller->Stop();
  if (dashboard) dashboard->Stop();
  if (identity) identity->Stop();
  (*server)->Stop();
  return 0;
}

}  // namespace

void AddServeCommand(CLI::App& app) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* serve = app.add_subcommand(
      "serve", "Run the coordination server (Kubernetes API for Lease, LeaseCandidate, ...)");
  serve->add_option("--data-dir", flags->data_dir,
                    "Folder for the database, certificates, token and kubeconfig "
                    "(default $XDG_DATA_HOME/tenure or ~/.local/share/tenure)");
  serve->add_option("--listen", flags->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  serve
      ->add_option("--dashboard", flags->dashboard,
                   "Serve the web dashboard under /dashboard (for users RBAC lets get "
                   "/dashboard/*: the ClusterRole tenure:dashboard-viewer)")
      ->capture_default_str();
  serve->add_flag("--insecure-http", flags->insecure_http,
                  "Serve plain HTTP instead of HTTPS (loopback only; for tests)");
  serve
      ->add_option("--watch-history", flags->watch_history,
                   "At most this many writes kept for resuming watches from, and listing at, an "
                   "older resourceVersion")
      ->capture_default_str();
  serve
      ->add_option("--watch-history-per-object", flags->watch_history_per_object,
                   "Beyond 10000 writes, keep no more than this many per stored object (a "
                   "watcher further behind relists; 0: only --watch-history bounds it)")
      ->capture_default_str();
  serve
      ->add_option("--watch-history-min-age", flags->watch_history_min_age,
                   "Seconds: writes younger than this stay beyond --watch-history-per-object, so "
                   "a client that lists and then watches within that time never has to relist")
      ->check(CLI::Range(int64_t{0}, int64_t{86400}))
      ->capture_default_str();
  serve->add_option("--feature-gates", flags->feature_gates,
                    "Kubernetes feature gates: CoordinatedLeaderElection (default true) and, "
                    "with --store etcd, ConsistentListFromCache (default true: consistent reads "
                    "answered from the replica's watch-fed copy once it has caught up with etcd)");
  serve->add_option("--runtime-config", flags->runtime_config,
                    "API versions to serve, e.g. coordination.k8s.io/v1beta1=false");
  serve->add_option("--token-auth-file", flags->token_auth_file,
                    "Static token file as kube-apiserver reads it: CSV lines of "
                    "token,user,uid[,\"group1,group2\"] (read at start)");
  serve->add_option("--tls-san", flags->tls_sans,
                    "A DNS name or IP address the server certificate must also be valid for "
                    "(repeatable; the certificate is issued again when one is missing)");
  serve->add_option("--tls-cert-file", flags->tls_cert_file,
                    "Your own server certificate chain (PEM), served instead of the data "
                    "folder's; read again when it changes");
  serve->add_option("--tls-private-key-file", flags->tls_private_key_file,
                    "The key of --tls-cert-file (PEM)");
  serve->add_option("--client-ca-file", flags->client_ca_files,
                    "CA bundle whose client certificates authenticate users: CN the user, O "
                    "the groups (repeatable; the data folder's CA, which `tenure issue-user` "
                    "uses, always does)");
  serve->add_option("--audit-log-path", flags->audit_log_path,
                    "Write an audit log (audit.k8s.io/v1 Event JSON lines) to this file; - for "
                    "standard output");
  serve->add_option("--audit-policy-file", flags->audit_policy_file,
                    "Audit policy (audit.k8s.io/v1 Policy, YAML or JSON): what is recorded at "
                    "which level (default: every request at Metadata)");
  serve->add_option("--audit-log-format", flags->audit_log_format, "Audit log format")
      ->check(CLI::IsMember({"json"}))
      ->capture_default_str();
  serve
      ->add_option("--audit-log-maxsize", flags->audit_log_maxsize,
                   "Megabytes before the audit log is rotated (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      ->add_option("--audit-log-maxbackup", flags->audit_log_maxbackup,
                   "Rotated audit logs kept (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      ->add_option("--audit-log-maxage", flags->audit_log_maxage,
                   "Days rotated audit logs are kept (0: forever)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve->add_option("--threads", flags->threads, "HTTP threads (default: one per core)");
  serve
      ->add_option("--store", flags->store,
                   "Where objects live: sqlite (in --data-dir) or etcd (--etcd-endpoints); "
                   "replicas on one etcd cluster sharing --data-dir credentials are one service")
      ->check(CLI::IsMember({"sqlite", "etcd"}))
      ->capture_default_str();
  serve->add_option("--etcd-endpoints", flags->etcd_endpoints,
                    "etcd client URLs, comma-separated, e.g. http://127.0.0.1:2379,...");
  serve->add_option("--etcd-prefix", flags->etcd.prefix, "Key prefix of all objects in etcd")
      ->capture_default_str();
  serve->add_option("--etcd-cafile", flags->etcd.ca_file, "CA bundle to verify etcd (https)");
  serve->add_option("--etcd-certfile", flags->etcd.cert_file, "Client certificate for etcd");
  serve->add_option("--etcd-keyfile", flags->etcd.key_file, "Client key for etcd");
  serve
      ->add_option("--etcd-compaction-interval", flags->etcd_compaction_interval,
                   "Seconds between compactions of etcd's history (0: never), as kube-apiserver")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve
      ->add_option("--coordination-lease-duration", flags->coordination_lease_duration,
                   "leaseDurationSeconds the coordinated election controller writes when it "
                   "assigns a lease (Kubernetes: 5)")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  serve
      ->add_option("--coordination-election-duration", flags->coordination_election_duration,
                   "Seconds the controller waits for candidates to answer a ping; an answer "
                   "younger than this counts (Kubernetes: 5)")
      ->check(CLI::Range(0.1, 600.0))
      ->capture_default_str();
  serve->callback([flags] { std::exit(Serve(*flags)); });
}

}  // namespace tenure::cli
