// KubeClient: the Kubernetes REST calls libtenure needs, over a small pool of keep-alive
// connections, plus shared watches. One KubeClient serves any number of electors: they share
// its connections and, per collection, one watch stream.
//
// Errors are tenure::Status values mapped from the server's Status objects (NotFound, Conflict,
// ...); transport failures are Unavailable or Timeout. Thread-safe.
//
// With several endpoints (replicas of one API server, ClusterConfig::more_endpoints) requests
// go to the current one; on a transport failure it rotates to the next (EndpointRotation), its
// pooled connections are dropped, and a request that is safe to repeat (a read, or a write that
// never left: MayRetryElsewhere) is repeated on the next endpoint within its timeout. Watches
// reconnect to the current endpoint and resume from their last resourceVersion.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "client/connection_pool.h"
#include "client/endpoint_rotation.h"
#include "client/http_connection.h"
#include "client/kube_config.h"
#include "tenure/status.h"

namespace tenure::client {

class WatchMultiplexer;

// Receives the watch events of one object: type is ADDED, MODIFIED or DELETED.
using ObjectEventHandler =
    std::function<void(const std::string& type, const nlohmann::json& object)>;
// The same with the object as JSON text: a watched object as the server sent it (managedFields
// included), a listed one as WatchObject delivers it, written out again. For a subscriber that
// reads a few members of it and keeps the rest as text (a lock).
using ObjectTextHandler = std::function<void(const std::string& type, std::string_view object)>;
// Whether a collection subscriber wants the events of the object `name` in `namespace_` ("" for
// a cluster-scoped one). Asked on the watch thread, before an event is parsed, for every event
// and listed object: it must be quick, must not block and must not call the client.
using ObjectFilter = std::function<bool(const std::string& namespace_, const std::string& name)>;

class Subscription {
 public:
  virtual ~Subscription() = default;
  // Whether the shared stream is currently connected (false while the server is unreachable
  // or refuses to watch).
  virtual bool active() const = 0;
};

class KubeClient : public std::enable_shared_from_this<KubeClient> {
 public:
  static Result<std::shared_ptr<KubeClient>> Create(ClusterConfig config);
  ~KubeClient();

  // `path` is an API path ("/apis/coordination.k8s.io/v1/namespaces/ns/leases/x"). A successful
  // reply that is not JSON is an Internal error.
  Result<nlohmann::json> Call(const std::string& method, const std::string& path,
                              const nlohmann::json* body, std::chrono::nanoseconds timeout,
                              const std::string& content_type = "application/json");
  // The same with the body as text (null: none), returning a successful reply's text unparsed:
  // for a caller that reads a few members of the reply and keeps the rest as text (a lock).
  Result<std::string> CallForText(const std::string& method, const std::string& path,
                                  const std::string* body, std::chrono::nanoseconds timeout,
                                  const std::string& content_type = "application/json");

  // Events of the object `name` in the collection at `collection_path`, from one shared watch
  // per collection (resumed from the last resourceVersion, relisted after 410 Expired). Objects
  // come without metadata.managedFields, here and in WatchCollection (no subscriber reads them,
  // and they are most of what parsing a small object costs). The
  // path may carry a labelSelector or fieldSelector query: each distinct path is a stream of its
  // own, shared by the subscribers of that path. The handler runs on the watch thread and must not
  // block. Destroying the subscription stops deliveries (and the watch, when it was the last one);
  // it waits for a call of its handler in progress, and for nothing else: never destroy it holding
  // a lock that handler takes, nor from inside a handler of its stream.
  // `known`, when given, is the newest resourceVersion of the object the subscriber already has
  // (from its own reads and writes): an event at or below it is neither parsed for it nor
  // delivered (a leader's watch brings the echo of each of its renewals, which the reply to the
  // renewal gave it already).
  std::unique_ptr<Subscription> WatchObject(
      const std::string& collection_path, const std::string& name, ObjectEventHandler handler,
      std::shared_ptr<const std::atomic<uint64_t>> known = nullptr);
  // The same with each object as text: an event only such subscribers want is not parsed.
  std::unique_ptr<Subscription> WatchObjectText(
      const std::string& collection_path, const std::string& name, ObjectTextHandler handler,
      std::shared_ptr<const std::atomic<uint64_t>> known = nullptr);

  // Every event of the collection at `collection_path` (which may span all namespaces, e.g.
  // "/apis/coordination.k8s.io/v1/leases"), from the same shared stream. The handler first gets
  // the current state (each object as MODIFIED) and then ("SYNCED", {}); after every later
  // relist too (objects gone meanwhile come as DELETED with only namespace and name).
  // With `wants`, only the objects it accepts reach the handler (SYNCED always does), and an
  // event no subscriber of the stream wants is not parsed: a filter that starts to accept an
  // object later does not bring back what it turned away, so its caller reads that object.
  std::unique_ptr<Subscription> WatchCollection(const std::string& collection_path,
                                                ObjectEventHandler handler,
                                                ObjectFilter wants = nullptr);

  const ClusterConfig& config() const { return config_; }
  // Requests sent (watch streams counted once per start): for tests and benchmarks.
  uint64_t requests() const { return requests_.load(); }

  // The endpoint requests go to now (an index into AllEndpoints(config())).
  size_t current_endpoint() const { return rotation_.current(); }

  // Internal to the client layer.
  using Headers_t = std::vector<std::pair<std::string, std::string>>;
  // The request headers with the current credentials. With an exec plugin this may run it (once
  // for all callers); its failure is an Unauthorized Status naming the plugin.
  Result<Headers_t> Headers(const std::string& content_type);
  // The server answered 401 to a request sent with `headers`: an exec credential is dropped so
  // the next request runs the plugin again. True when that happened (a retry may succeed).
  bool CredentialsRejected(const Headers_t& headers);
  // Runs of the exec credential plugin so far (0 without one).
  int exec_runs() const;
  // A new connection to endpoint `index` (with the short connect timeout when there are several,
  // and the exec plugin's client certificate when it gave one).
  std::unique_ptr<HttpConnection> NewConnection(size_t index);
  // A transport failure on endpoint `index`: rotate away from it and drop its idle connections.
  void EndpointFailed(size_t index);
  void CountRequest() { ++requests_; }

 private:
  explicit KubeClient(ClusterConfig config);
  // Call's work, with the body as text (null: none): a successful reply's text, or the Status of
  // the failure or of the server's error reply.
  Result<std::string> Send(const std::string& method, const std::string& path,
                           const std::string* body, std::chrono::nanoseconds timeout,
                           const std::string& content_type);
  std::string BearerToken();
  // At most config_.max_connections requests are in flight; more wait for a connection (bounded by
  // their timeout, served earliest deadline first), so a thousand electors share a few
  // kept-alive TLS connections.
  using Pooled = ConnectionPool::Lent;
  // The exec plugin gave a (new) client certificate: connections opened with the old one are
  // not reused.
  void UseExecCertificate(const ExecCredential& credential);
  Result<Pooled> TakeConnection(size_t endpoint, std::chrono::nanoseconds timeout);
  void ReturnConnection(Pooled pooled);

  ClusterConfig config_;
  std::vector<Endpoint> endpoints_;  // AllEndpoints(config_)
  EndpointRotation rotation_;
  std::mutex mu_;
  ConnectionPool pool_;
  std::unique_ptr<ExecCredentialCache> exec_;
  std::string exec_cert_, exec_key_;  // the exec plugin's client certificate, guarded by mu_
  uint64_t generation_ = 0;           // bumped when it changes, guarded by mu_
  std::string file_token_;
  std::filesystem::file_time_type token_mtime_{};
  std::atomic<uint64_t> requests_{0};
  std::unique_ptr<WatchMultiplexer> watches_;
};

// The LeaseCandidate version the server serves (coordination.k8s.io, by discovery):
// "v1beta1" preferred, else "v1alpha2"; NotFound when neither is served (coordinated leader
// election is off on that server).
Result<std::string> ServedLeaseCandidateVersion(KubeClient& client,
                                                std::chrono::nanoseconds timeout);

}  // namespace tenure::client
