// Server::Start (ServerImpl): store, credentials, namespaces and HTTP server.
#include "server/server.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "server/api_server.h"
#include "server/bootstrap_policy.h"
#include "server/connection_limits.h"
#include "server/http_server.h"
#include "server/metrics_endpoint.h"
#include "server/namespace_controller.h"
#include "server/resource_api.h"
#include "store/etcd_store.h"
#include "store/sqlite_store.h"
#include "tenure/version.h"

namespace tenure::server {

std::vector<ServedVersion> ServedVersions(const ServerOptions& options) {
  std::vector<ServedVersion> served;
  for (const ServedVersion& sv : AllServedVersions()) {
    if (sv.kind->resource == "leasecandidates") {
      if (!options.coordinated_leader_election) continue;
      std::string gv = std::string(sv.kind->group) + "/" + std::string(sv.version);
      auto it = options.runtime_config.find(gv);
      if (it != options.runtime_config.end() && !it->second) continue;
    }
    served.push_back(sv);
  }
  return served;
}

std::string ServerAddress(const ServerOptions& options) {
  return options.address + ":" + std::to_string(options.port);
}

namespace {

Result<std::unique_ptr<store::Store>> OpenStore(const ServerOptions& options) {
  if (options.store == "sqlite") {
    store::SqliteStoreOptions sqlite;
    sqlite.path = options.data_dir + "/tenure.db";
    sqlite.watch_history_capacity = options.watch_history;
    sqlite.watch_history_per_object = options.watch_history_per_object;
    sqlite.watch_history_min_age = options.watch_history_min_age;
    auto store = store::SqliteStore::Open(sqlite);
    if (!store.ok()) return store.status();
    return std::unique_ptr<store::Store>(std::move(*store));
  }
  if (options.store == "etcd") {
    store::EtcdStoreOptions etcd = options.etcd;
    etcd.watch_history_capacity = options.watch_history;
    etcd.watch_history_per_object = options.watch_history_per_object;
    etcd.watch_history_min_age = options.watch_history_min_age;
    auto store = store::EtcdStore::Open(etcd);
    if (!store.ok()) return store.status();
    return std::unique_ptr<store::Store>(std::move(*store));
  }
  return Status::BadRequest("unknown store \"" + options.store + "\" (sqlite or etcd)");
}

// The server's own /metrics section: read at scrape time only, nothing on the request path.
MetricsEndpoint::Section ServerMetrics(std::weak_ptr<store::Store> store, std::string store_kind) {
  double started =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return [store, started, store_kind] {
    std::string out =
        RenderBuildInfo() +
        GaugeFamily("tenure_server_start_time_seconds",
                    "When this server started, in seconds since the Unix epoch.", started);
    if (auto s = store.lock()) {
      out +=
          "# HELP tenure_store_info The store this server keeps its objects in.\n"
          "# TYPE tenure_store_info gauge\n"
          "tenure_store_info{store=\"" +
          store_kind + "\"} 1\n";
      out += GaugeFamily("tenure_store_revision",
                         "The store's current revision (resourceVersion of the latest write).",
                         static_cast<double>(s->CurrentRevision()));
    }
    return out;
  };
}

constexpr const char* kBuiltinNamespaces[] = {"default", "kube-system", "kube-public",
                                              "kube-node-lease"};

class ServerImpl final : public Server {
 public:
  ~ServerImpl() override { Stop(); }

  Status Init(const ServerOptions& options) {
    auto credentials = EnsureCredentials(options.data_dir, options.certificate);
    if (!credentials.ok()) return credentials.status();
    credentials_ = std::move(*credentials);
    auto store = OpenStore(options);
    if (!store.ok()) return store.status();
    store_ = std::move(*store);
    request_metrics_ = std::make_shared<RequestMetrics>();
    auto resources = std::make_shared<ResourceApi>(store_, Clock::Real(), request_metrics_);
    const api::KindInfo* ns = api::FindByResource("", "namespaces");
    for (const char* name : kBuiltinNamespaces) {
      Status s = resources->EnsureExists(
          *ns, std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") + name +
                   "\"}}");
      if (!s.ok()) return s;
    }
    if (Status s = EnsureBootstrapPolicy(*resources); !s.ok()) return s;
    auto policy = AuthCache::Start(store_);
    if (!policy.ok()) return policy.status();
    auto namespaces = NamespaceController::Start(store_, Clock::Real());
    if (!namespaces.ok()) return namespaces.status();
    namespaces_ = std::move(*namespaces);
    // Before anything opens files: a server holds one descriptor per connection.
    RaiseOpenFileLimit();
    HttpServerOptions http;
    http.address = options.address;
    http.port = options.port;
    http.tls = options.tls;
    http.cert_file = credentials_.server_cert_file;
    http.key_file = credentials_.server_key_file;
    http.client_ca_files = {credentials_.ca_cert_file};
    http.client_ca_files.insert(http.client_ca_files.end(), options.client_ca_files.begin(),
                                options.client_ca_files.end());
    http.threads = options.threads;
    http.max_stream_buffer_bytes = options.max_watch_buffer_bytes;
    http.request_timeout = options.request_timeout;
    ApiServerOptions api_options;
    api_options.token = credentials_.token;
    api_options.tokens = options.tokens;
    coordination_token_ = NewToken();
    api_options.tokens.users[coordination_token_] = {.name =
                                                         std::string(kCoordinationControllerUser)};
    dashboard_token_ = NewToken();
    api_options.tokens.users[dashboard_token_] = {.name = std::string(kDashboardReaderUser)};
    identity_token_ = NewToken();
    api_options.tokens.users[identity_token_] = {.name = std::string(kServerIdentityUser)};
    api_options.served = ServedVersions(options);
    api_options.version = options.version;
    api_options.server_address = ServerAddress(options);
    metrics_ = std::make_shared<MetricsEndpoint>(ServerMetrics(store_, options.store));
    metrics_->Add([counters = request_metrics_] { return counters->Render(); });
    api_options.metrics = metrics_;
    api_options.request_metrics = request_metrics_;
    api_options.admission = options.admission;
    api_options.policy = *policy;
    auto tokens = ServiceAccountTokens::Open(credentials_.service_account_key_file,
                                             std::string(ServiceAccountTokens::kDefaultIssuer));
    if (!tokens.ok()) return tokens.status();
    api_options.service_account_tokens = *tokens;
    if (options.audit_log) {
      auto log = AuditLogFile::Open(*options.audit_log);
      if (!log.ok()) return log.status();
      api_options.auditor = std::make_shared<Auditor>(
          options.audit_policy.value_or(MetadataForEverything()), std::move(*log), Clock::Real());
    }
    // A store whose reads block the calling thread for a network round trip (etcd; SQLite reads
    // memory) runs them on pools with threads enough to keep many in flight, and leaves the HTTP
    // threads (one per core) to leader election's updates, which need not block (admission.h).
    // Many HTTP threads would cost every request a wake-up of an idle one instead.
    if (store_->ReadsBlock()) {
      const size_t pool = static_cast<size_t>(
          std::max(16, 4 * static_cast<int>(std::thread::hardware_concurrency())));
      if (api_options.admission.blocking_threads == 0) {
        api_options.admission.blocking_threads = pool;
      }
      if (api_options.admission.leader_election_threads == 0) {
        api_options.admission.leader_election_threads = pool;
      }
    }
    auto handler = std::make_shared<ApiServer>(api_options, resources);
    metrics_->Add([weak = std::weak_ptr<ApiServer>(handler)] {
      auto api = weak.lock();
      return api ? api->admission().RenderMetrics() : std::string();
    });
    api_ = handler;
    auto server = HttpServer::Start(http, handler);
    if (!server.ok()) return server.status();
    http_ = std::move(*server);
    std::string host = options.address.find(':') != std::string::npos ? "[" + options.address + "]"
                                                                      : options.address;
    url_ = std::string(options.tls ? "https://" : "http://") + host + ":" +
           std::to_string(http_->port());
    return WriteKubeconfig(credentials_, url_);
  }

  uint16_t port() const override { return http_ ? http_->port() : 0; }
  std::string url() const override { return url_; }
  const Credentials& credentials() const override { return credentials_; }
  const std::string& coordination_token() const override { return coordination_token_; }
  const std::string& dashboard_token() const override { return dashboard_token_; }
  const std::string& identity_token() const override { return identity_token_; }
  void Mount(std::shared_ptr<WebApp> app) override {
    if (api_) api_->Mount(std::move(app));
  }
  void AddMetrics(std::function<std::string()> render) override {
    if (metrics_) metrics_->Add(std::move(render));
  }
  Result<std::unique_ptr<LocalCollectionWatch>> WatchCollection(
      const api::KindInfo& kind, std::string version,
      LocalCollectionWatch::Handler handler) override {
    if (!store_) return Status::Unavailable("the server has stopped");
    return LocalCollectionWatch::Start(store_, kind, std::move(version), std::move(handler));
  }

  void Stop() override {
    // HTTP first (no new requests), then the store drains its writes and callbacks while the
    // handlers they call back into (ResourceApi's retries) still exist, then those go.
    if (http_) http_->Stop();
    namespaces_.reset();
    if (store_) store_->Close();
    store_.reset();
    http_.reset();
  }

 private:
  Credentials credentials_;
  std::string coordination_token_;
  std::string dashboard_token_;
  std::string identity_token_;
  std::shared_ptr<ApiServer> api_;
  std::shared_ptr<store::Store> store_;
  std::unique_ptr<NamespaceController> namespaces_;
  std::unique_ptr<HttpServer> http_;
  std::shared_ptr<MetricsEndpoint> metrics_;
  std::shared_ptr<RequestMetrics> request_metrics_;
  std::string url_;
};

}  // namespace

Result<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>();
  Status s = server->Init(options);
  if (!s.ok()) return s;
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace tenure::server
