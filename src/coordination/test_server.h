// Test support for the coordination tests: an in-process tenure server (HTTPS, port 0) in a
// temporary folder with a Cluster connected through its kubeconfig; waits are on conditions
// with a deadline (election/test_waits.h), never fixed sleeps.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "tenure/testing/waits.h"
#include "server/server.h"
#include "tenure/cluster.h"

namespace tenure::coordination {

using tenure::testing::Eventually;

class TestServer {
 public:
  // `options.data_dir` and `port` are set here.
  explicit TestServer(server::ServerOptions options = {}) {
    char tmpl[] = "/tmp/tenure-coordination-test-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      ADD_FAILURE() << "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    options.data_dir = dir_;
    options.port = 0;
    auto server = server::Server::Start(options);
    if (!server.ok()) {
      ADD_FAILURE() << server.status().ToString();
      return;
    }
    server_ = std::move(*server);
    auto cluster = Cluster::Connect({.kubeconfig = server_->credentials().kubeconfig_file});
    if (!cluster.ok()) {
      ADD_FAILURE() << cluster.status().ToString();
      return;
    }
    cluster_ = *cluster;
  }
  ~TestServer() {
    if (server_) server_->Stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  bool ok() const { return cluster_ != nullptr; }
  const std::shared_ptr<Cluster>& cluster() const { return cluster_; }
  client::KubeClient& client() const { return cluster_->client(); }

 private:
  std::string dir_;
  std::unique_ptr<server::Server> server_;
  std::shared_ptr<Cluster> cluster_;
};

}  // namespace tenure::coordination
