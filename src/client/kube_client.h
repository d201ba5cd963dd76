// KubeClient: the Kubernetes REST calls libtenure needs, over a small pool of keep-alive
// connections, plus shared watches. One KubeClient serves any number of electors: they share
// its connections and, per collection, one watch stream.
//
// Errors are tenure::Status values mapped from the server's Status objects (NotFound, Conflict,
// ...); transport failures are Unavailable or Timeout. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "client/http_connection.h"
#include "client/kube_config.h"
#include "tenure/status.h"

namespace tenure::client {

class WatchMultiplexer;

// Receives the watch events of one object: type is ADDED, MODIFIED or DELETED.
using ObjectEventHandler = std::function<void(const std::string& type, const nlohmann::json& object)>;

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

  // `path` is an API path ("/apis/coordination.k8s.io/v1/namespaces/ns/leases/x").
  Result<nlohmann::json> Call(const std::string& method, const std::string& path,
                              const nlohmann::json* body, std::chrono::nanoseconds timeout,
                              const std::string& content_type = "application/json");

  // Events of the object `name` in the collection at `collection_path`, from one shared watch
  // per collection (resumed from the last resourceVersion, relisted after 410 Expired). The
  // handler runs on the watch thread and must not block. Destroying the subscription stops
  // deliveries (and the watch, when it was the last one).
  std::unique_ptr<Subscription> WatchObject(const std::string& collection_path,
                                            const std::string& name, ObjectEventHandler handler);

  const ClusterConfig& config() const { return config_; }
  // Requests sent (watch streams counted once per start): for tests and benchmarks.
  uint64_t requests() const { return requests_.load(); }

  // Internal to the client layer.
  std::vector<std::pair<std::string, std::string>> Headers(const std::string& content_type);
  std::unique_ptr<HttpConnection> NewConnection() const;
  void CountRequest() { ++requests_; }

 private:
  explicit KubeClient(ClusterConfig config);
  std::string BearerToken();
  // At most kMaxConnections requests are in flight; more wait for a connection (bounded by
  // their timeout), so a thousand electors share a few kept-alive TLS connections.
  Result<std::unique_ptr<HttpConnection>> TakeConnection(std::chrono::nanoseconds timeout);
  void ReturnConnection(std::unique_ptr<HttpConnection> connection);

  ClusterConfig config_;
  std::mutex mu_;
  std::condition_variable connection_freed_;
  std::vector<std::unique_ptr<HttpConnection>> idle_;
  size_t connections_ = 0;  // open ones, idle or in use
  std::string file_token_;
  std::filesystem::file_time_type token_mtime_{};
  std::atomic<uint64_t> requests_{0};
  std::unique_ptr<WatchMultiplexer> watches_;
};

}  // namespace tenure::client
