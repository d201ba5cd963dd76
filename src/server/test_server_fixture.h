// ServerFixture: the testing kit's InProcessServer as a GoogleTest fixture, and HTTPS calls to it
// with the server's token, for tests of the server over the wire.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "client/http_connection.h"
#include "server/server.h"
#include "testing/in_process_server.h"

namespace tenure::server::testing {

class ServerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.watch_history = 50;
    Configure(options);
    auto server = tenure::testing::InProcessServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  void TearDown() override { server_.reset(); }

  // Lets a fixture change the options before the server starts.
  virtual void Configure(ServerOptions&) {}

  client::Endpoint endpoint() const { return server_->endpoint(); }
  std::vector<std::pair<std::string, std::string>> headers() const {
    return {{"Authorization", "Bearer " + server_->credentials().token},
            {"Content-Type", "application/json"},
            {"Accept", "application/json"}};
  }
  nlohmann::json Call(client::HttpConnection& c, const std::string& method,
                      const std::string& target, const std::string& body, int* status = nullptr) {
    auto h = headers();
    if (method == "PATCH") h[1].second = "application/merge-patch+json";
    auto reply = c.Request(method, target, h, body, std::chrono::seconds(10));
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    if (!reply.ok()) return nlohmann::json();
    if (status) *status = reply->status;
    return nlohmann::json::parse(reply->body, nullptr, false);
  }

  // One request with the given Content-Type; a reply with status 0 when the transport failed
  // (the connection closed without an answer, say).
  client::HttpReply Send(client::HttpConnection& c, const std::string& method,
                         const std::string& target, const std::string& body,
                         const std::string& content_type = "application/json",
                         const std::vector<std::pair<std::string, std::string>>& extra = {}) {
    auto h = headers();
    h[1].second = content_type;
    h.insert(h.end(), extra.begin(), extra.end());
    auto reply = c.Request(method, target, h, body, std::chrono::seconds(30));
    if (!reply.ok()) return client::HttpReply{};
    return std::move(*reply);
  }

  std::unique_ptr<tenure::testing::InProcessServer> server_;
};

}  // namespace tenure::server::testing
