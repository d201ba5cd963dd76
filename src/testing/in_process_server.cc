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
  return s;
}

InProcessServer::~InProcessServer() {
  Stop();
  std::filesystem::remove_all(dir_);
}

void InProcessServer::Stop() {
  if (stopped_ || !server_) return;
  stopped_ = true;
  server_->Stop();
}

const std::string& InProcessServer::token() const { return server_->credentials().token; }

const std::string& InProcessServer::kubeconfig() const {
  return server_->credentials().kubeconfig_file;
}

client::Endpoint InProcessServer::endpoint() const {
  client::Endpoint ep;
  ep.port = server_->port();
  ep.tls.enabled = tls_;
  if (tls_) ep.tls.ca_file = server_->credentials().ca_cert_file;
  return ep;
}

Result<std::shared_ptr<Cluster>> InProcessServer::Connect() const {
  return Cluster::Connect({.kubeconfig = kubeconfig()});
}

}  // namespace tenure::testing
