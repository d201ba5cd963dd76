// InProcessServer: a tenure server started in this process on a free loopback port with a
// temporary data folder of its own (removed when it is destroyed), and what a test needs to talk
// to it: its endpoint and token for raw HTTPS calls, its kubeconfig, a Cluster for the library.
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
  const std::string& token() const;
  const std::string& kubeconfig() const;
  // Where a client::HttpConnection reaches the server (TLS with its CA unless plain).
  client::Endpoint endpoint() const;
  // A new connection of the library, through the server's kubeconfig.
  Result<std::shared_ptr<Cluster>> Connect() const;
  // Stops the server (the folder stays until destruction); idempotent.
  void Stop();

 private:
  InProcessServer() = default;
  std::string dir_;
  bool tls_ = true;
  std::unique_ptr<server::Server> server_;
  bool stopped_ = false;
};

}  // namespace tenure::testing
