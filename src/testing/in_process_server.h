// InProcessServer: a tenure server started in this process on a free loopback port with a
// temporary data folder of its own (removed when it is destroyed), and what a test needs to talk
// to it: its endpoint and token for raw HTTPS calls, its kubeconfig, Clusters for the library.
// The one server fixture of every C++ test and benchmark that needs a server.
#pragma once

#include <memory>
#include <string>

#include "client/http_connection.h"
#include "server/server.h"
#include "tenure/cluster.h"
#include "tenure/status.h"

namespace tenure::testing {

class InProcessServer {
 public:
  // `options.data_dir` and `options.port` are chosen here (a fresh folder, port 0).
  static Result<std::unique_ptr<InProcessServer>> Start(server::ServerOptions options = {});
  ~InProcessServer();
  InProcessServer(const InProcessServer&) = delete;
  InProcessServer& operator=(const InProcessServer&) = delete;

  server::Server& server() const { return *server_; }
  const std::string& data_dir() const { return dir_; }
  uint16_t port() const { return server_->port(); }
  // The CA, the admin token and the kubeconfig the server wrote into its folder.
  const server::Credentials& credentials() const { return server_->credentials(); }
  // Where a client::HttpConnection reaches the server (TLS with its CA unless plain).
  client::Endpoint endpoint() const;
  // The library's connection made at start, through the server's kubeconfig (nullptr for a
  // plain-HTTP server).
  const std::shared_ptr<Cluster>& cluster() const { return cluster_; }
  // Another connection of its own (a second process, as far as the server can tell).
  Result<std::shared_ptr<Cluster>> Connect() const;
  // Stops the server (the folder stays until destruction); idempotent.
  void Stop();

 private:
  InProcessServer() = default;
  std::string dir_;
  bool tls_ = true;
  std::unique_ptr<server::Server> server_;
  std::shared_ptr<Cluster> cluster_;
  bool stopped_ = false;
};

}  // namespace tenure::testing
