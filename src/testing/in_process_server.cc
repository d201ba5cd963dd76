// InProcessServer: a tenure server in a temporary folder for tests (see in_process_server.h).
#include "testing/in_process_server.h"

#include <stdlib.h>

#include <filesystem>

namespace tenure::testing {

Result<std::unique_ptr<InProcessServer>> InProcessServer::Start(server::ServerOptions options) {
  char tmpl[] = "/tmp/tenure-test-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return Status::Internal("mkdtemp failed");
  std::unique_ptr<InProcessServer> s(new InProcessServer());
  s->dir_ = tmpl;
  options.data_dir = s->dir_;
  options.port = 0;
  s->tls_ = options.tls;
  auto server = server::Server::Start(options);
  if (!server.ok()) return server.status();
  s->server_ = std::move(*server);
  if (!s->tls_) return s;  // the kubeconfig names an HTTPS server
  auto cluster = s->Connect();
  if (!cluster.ok()) return cluster.status();
  s->cluster_ = std::move(*cluster);
  return s;
}

InProcessServer::~InProcessServer() {
  cluster_.reset();  // its watches end before the server goes
  Stop();
  std::filesystem::remove_all(dir_);
}

void InProcessServer::Stop() {
  if (stopped_ || !server_) return;
  stopped_ = true;
  server_->Stop();
}

client::Endpoint InProcessServer::endpoint() const {
  client::Endpoint ep;
  ep.port = server_->port();
  ep.tls.enabled = tls_;
  if (tls_) ep.tls.ca_file = credentials().server_trust_file;
  return ep;
}

Result<std::shared_ptr<Cluster>> InProcessServer::Connect() const {
  return Cluster::Connect({.kubeconfig = credentials().kubeconfig_file});
}

}  // namespace tenure::testing
