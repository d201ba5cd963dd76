// KubeClient: REST calls over pooled keep-alive connections, endpoint failover, shared watches.
#include "client/kube_client.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "api/api_paths.h"
#include "api/json_text.h"
#include "api/status_object.h"
#include "client/proxy.h"
#include "client/watch_multiplexer.h"
#include "tenure/log.h"

namespace tenure::client {

namespace {
std::string HostPort(const Endpoint& e) { return e.host + ":" + std::to_string(e.port); }

// A successful reply's text parsed; a failure as it came.
Result<nlohmann::json> ParseReply(Result<std::string> text) {
  if (!text.ok()) return text.status();
  nlohmann::json parsed = api::ParseJson(*text);
  if (parsed.is_discarded()) return Status::Internal("the server sent a reply that is not JSON");
  return parsed;
}
}  // namespace

KubeClient::KubeClient(ClusterConfig config)
    : config_(std::move(config)),
      endpoints_(AllEndpoints(config_)),
      rotation_(endpoints_.size()),
      pool_(std::max<size_t>(config_.max_connections, 1)) {
  if (config_.exec) exec_ = std::make_unique<ExecCredentialCache>(*config_.exec);
}

KubeClient::~KubeClient() { watches_.reset(); }

Result<std::shared_ptr<KubeClient>> KubeClient::Create(ClusterConfig config) {
  auto client = std::shared_ptr<KubeClient>(new KubeClient(std::move(config)));
  for (Endpoint& endpoint : client->endpoints_) {
    auto proxy = ChooseProxy(endpoint, client->config_.proxy_url, ::getenv);
    if (!proxy.ok()) return proxy.status();
    endpoint.proxy = *proxy;
  }
  client->watches_ = std::make_unique<WatchMultiplexer>(*client);
  return client;
}

std::string KubeClient::BearerToken() {
  if (config_.token_file.empty()) return config_.token;
  std::error_code ec;
  auto mtime = std::filesystem::last_write_time(config_.token_file, ec);
  std::lock_guard lock(mu_);
  if (!ec && (file_token_.empty() || mtime != token_mtime_)) {
    std::ifstream in(config_.token_file);
    std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    if (!token.empty()) {
      file_token_ = token;
      token_mtime_ = mtime;
    }
  }
  return file_token_.empty() ? config_.token : file_token_;
}

Result<KubeClient::Headers_t> KubeClient::Headers(const std::string& content_type) {
  Headers_t headers = {{"Accept", "application/json"}};
  if (!content_type.empty()) headers.emplace_back("Content-Type", content_type);
  std::string token;
  if (exec_) {
    auto credential = exec_->Get();
    if (!credential.ok()) return credential.status();
    if (!credential->client_certificate_data.empty()) UseExecCertificate(*credential);
    token = credential->token;
  } else {
    token = BearerToken();
  }
  if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
  return headers;
}

bool KubeClient::CredentialsRejected(const Headers_t& headers) {
  if (!exec_) return false;
  std::string token;
  for (const auto& [name, value] : headers) {
    if (name == "Authorization" && value.rfind("Bearer ", 0) == 0) token = value.substr(7);
  }
  Log(LogLevel::kInfo, "credentials", "the server refused the exec plugin's credential (401)",
      {{"server", config_.server}});
  exec_->Invalidate(token);
  return true;
}

int KubeClient::exec_runs() const { return exec_ ? exec_->runs() : 0; }

void KubeClient::UseExecCertificate(const ExecCredential& credential) {
  uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    if (credential.client_certificate_data == exec_cert_ &&
        credential.client_key_data == exec_key_) {
      return;
    }
    exec_cert_ = credential.client_certificate_data;
    exec_key_ = credential.client_key_data;
    generation = ++generation_;
  }
  pool_.DropIdle([generation](const Pooled& idle) { return idle.generation != generation; });
}

std::unique_ptr<HttpConnection> KubeClient::NewConnection(size_t index) {
  Endpoint endpoint = endpoints_[index % endpoints_.size()];
  {
    std::lock_guard lock(mu_);
    if (!exec_cert_.empty()) {
      endpoint.tls.cert_file.clear();
      endpoint.tls.key_file.clear();
      endpoint.tls.cert_data = exec_cert_;
      endpoint.tls.key_data = exec_key_;
    }
  }
  auto connection = std::make_unique<HttpConnection>(std::move(endpoint));
  if (endpoints_.size() > 1) connection->set_connect_timeout(config_.connect_timeout);
  return connection;
}

void KubeClient::EndpointFailed(size_t index) {
  if (endpoints_.size() < 2) return;
  size_t next = rotation_.Failed(index);
  if (next != index) {
    Log(LogLevel::kWarning, "client", "API server endpoint failed; moving to the next",
        {{"failed", HostPort(endpoints_[index % endpoints_.size()])},
         {"next", HostPort(endpoints_[next % endpoints_.size()])}});
  }
  pool_.DropIdle([index](const Pooled& idle) { return idle.endpoint == index; });
}

Result<KubeClient::Pooled> KubeClient::TakeConnection(size_t endpoint,
                                                      std::chrono::nanoseconds timeout) {
  uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    generation = generation_;
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  auto lent = pool_.Take(endpoint, generation, deadline);
  if (!lent.ok())
    return Status::Timeout("no connection to " + config_.server + " became free in time");
  if (!lent->connection) lent->connection = NewConnection(endpoint);
  return lent;
}

void KubeClient::ReturnConnection(Pooled pooled) {
  // A connection to an endpoint we moved away from is not kept: the current one is preferred.
  // Nor one opened with a client certificate the exec plugin has replaced since.
  bool keep = pooled.endpoint == rotation_.current();
  {
    std::lock_guard lock(mu_);
    keep = keep && pooled.generation == generation_;
  }
  pool_.Return(std::move(pooled), keep);
}

Result<nlohmann::json> KubeClient::Call(const std::string& method, const std::string& path,
                                        const nlohmann::json* body,
                                        std::chrono::nanoseconds timeout,
                                        const std::string& content_type) {
  if (body == nullptr) return ParseReply(Send(method, path, nullptr, timeout, content_type));
  const std::string text = body->dump();
  return ParseReply(Send(method, path, &text, timeout, content_type));
}

Result<std::string> KubeClient::CallForText(const std::string& method, const std::string& path,
                                            const std::string* body,
                                            std::chrono::nanoseconds timeout,
                                            const std::string& content_type) {
  return Send(method, path, body, timeout, content_type);
}

Result<std::string> KubeClient::Send(const std::string& method, const std::string& path,
                                     const std::string* body, std::chrono::nanoseconds timeout,
                                     const std::string& content_type) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Result<HttpReply> reply = Status::Unavailable("no server to send " + method + " " + path + " to");
  // A 401 to an exec plugin's credential runs the plugin again and repeats the request once
  // (a 401 is answered before anything is done, so a write is safe to repeat).
  for (int authentication = 0; authentication < 2; ++authentication) {
    Headers_t sent_headers;
    reply = Status::Unavailable("no server to send " + method + " " + path + " to");
    // Each endpoint gets at most one try per call; the first always gets one.
    for (size_t attempt = 0; attempt < endpoints_.size(); ++attempt) {
      auto left = deadline - std::chrono::steady_clock::now();
      if (attempt > 0 && left <= std::chrono::nanoseconds::zero()) break;
      auto headers = Headers(body ? content_type : "");
      if (!headers.ok()) return headers.status();
      size_t endpoint = rotation_.current();
      auto taken = TakeConnection(endpoint, left);
      if (!taken.ok()) return taken.status();
      Pooled pooled = std::move(*taken);
      left = deadline - std::chrono::steady_clock::now();
      // A replica that hangs (paused, or cut off while its connection stays open) gets an even
      // share of what is left, not all of it: a read then still has time on the next endpoint,
      // and a write's caller (a leader renewing) still has time to read and write there.
      size_t untried = endpoints_.size() - attempt;
      auto ms = EndpointShare(left, untried);
      if (ms == std::chrono::milliseconds::zero()) {
        // Waiting for a free connection took what was left of the call.
        ReturnConnection(std::move(pooled));
        reply = Status::Timeout(method + " " + path + ": no time left to send it");
        break;
      }
      ++requests_;
      // The server gets the deadline too (`?timeout=`, as client-go sends it, a little less:
      // ServerTimeout): its store then gives up in time and shares the time among etcd members
      // instead of hanging on one, and its 504 comes before this client stops waiting.
      std::string target =
          config_.path_prefix +
          api::WithQuery(path, {{"timeout", std::to_string(ServerTimeout(ms).count()) + "ms"}});
      sent_headers = std::move(*headers);
      reply = pooled.connection->Request(method, target, sent_headers, body ? *body : "", ms);
      if (reply.ok()) {
        ReturnConnection(std::move(pooled));
        // A replica that answers but cannot serve (its store out of reach, or the request timed
        // out there) is as good as down: the next request goes elsewhere, and a read goes there
        // now. A write's answer is the caller's: its outcome may be unknown.
        if (ReplicaCannotServe(reply->status) && endpoints_.size() > 1) {
          EndpointFailed(endpoint);
          if (MayRetryElsewhere(method, /*sent=*/true)) continue;
        }
        break;
      }
      bool sent = pooled.connection->last_request_sent();
      pooled.connection.reset();  // a failed connection is dropped
      ReturnConnection(std::move(pooled));
      EndpointFailed(endpoint);
      if (!MayRetryElsewhere(method, sent)) {
        if (untried > 1 && reply.status().reason() == Reason::kTimeout) {
          reply =
              Status::Timeout(reply.status().message() + " after " + std::to_string(ms.count()) +
                              " ms, this endpoint's share of the call's timeout (the write may "
                              "or may not have been applied; the next request goes to another "
                              "endpoint)");
        }
        break;
      }
    }
    if (!reply.ok() || reply->status != 401 || authentication > 0 ||
        std::chrono::steady_clock::now() >= deadline || !CredentialsRejected(sent_headers)) {
      break;
    }
  }
  if (!reply.ok()) return reply.status();
  if (reply->status >= 400) return api::StatusFromResponse(reply->status, reply->body);
  return std::move(reply->body);
}

std::unique_ptr<Subscription> KubeClient::WatchObject(
    const std::string& collection_path, const std::string& name, ObjectEventHandler handler,
    std::shared_ptr<const std::atomic<uint64_t>> known) {
  return watches_->Subscribe(collection_path, name, std::move(handler), std::move(known));
}

std::unique_ptr<Subscription> KubeClient::WatchObjectText(
    const std::string& collection_path, const std::string& name, ObjectTextHandler handler,
    std::shared_ptr<const std::atomic<uint64_t>> known) {
  return watches_->SubscribeText(collection_path, name, std::move(handler), std::move(known));
}

std::unique_ptr<Subscription> KubeClient::WatchCollection(const std::string& collection_path,
                                                          ObjectEventHandler handler,
                                                          ObjectFilter wants) {
  return watches_->Subscribe(collection_path, "", std::move(handler), nullptr, std::move(wants));
}

Result<std::string> ServedLeaseCandidateVersion(KubeClient& client,
                                                std::chrono::nanoseconds timeout) {
  for (const char* version : {"v1beta1", "v1alpha2"}) {
    auto resources = client.Call("GET", api::GroupVersionPath(api::LeaseCandidateKind(), version),
                                 nullptr, timeout);
    if (resources.status().IsNotFound()) continue;
    if (!resources.ok()) return resources.status();
    for (const nlohmann::json& r : resources->value("resources", nlohmann::json::array())) {
      if (r.is_object() && r.value("name", "") == "leasecandidates") return std::string(version);
    }
  }
  return Status::NotFound(
      "the server serves no LeaseCandidate API (coordination.k8s.io v1beta1 or v1alpha2): "
      "coordinated leader election needs the CoordinatedLeaderElection feature gate and "
      "--runtime-config=coordination.k8s.io/v1beta1=true on the API server");
}

}  // namespace tenure::client
