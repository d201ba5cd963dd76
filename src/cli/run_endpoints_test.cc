// RunEndpoints over real loopback HTTP.
#include "cli/run_endpoints.h"

#include "cli/listen_address.h"

#include <gtest/gtest.h>

#include <atomic>

#include "client/http_connection.h"

namespace tenure::cli {
namespace {

using namespace std::chrono_literals;

class RunEndpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EndpointSources sources;
    sources.health = [this] {
      return healthy_ ? Status::Ok() : Status::Unavailable("lease not renewed");
    };
    sources.ready = [this] {
      return ready_ ? Status::Ok() : Status::Unavailable("leaderElection: not leading");
    };
    sources.metrics = [] { return std::string("# TYPE x gauge\nx 1\n"); };
    sources.info = [] {
      return std::string(R"({"leaderElection":{"leaderId":"a","role":"r","isLeader":true}})");
    };
    auto endpoints = RunEndpoints::Start("127.0.0.1:0", std::move(sources));
    ASSERT_TRUE(endpoints.ok()) << endpoints.status().ToString();
    endpoints_ = std::move(*endpoints);
    client::Endpoint ep;
    ep.port = endpoints_->port();
    connection_ = std::make_unique<client::HttpConnection>(ep);
  }
  client::HttpReply Get(const std::string& path, const std::string& method = "GET") {
    auto reply = connection_->Request(method, path, {}, "", 5000ms);
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return reply.ok() ? *reply : client::HttpReply{};
  }

  std::atomic<bool> healthy_{true}, ready_{true};
  std::unique_ptr<RunEndpoints> endpoints_;
  std::unique_ptr<client::HttpConnection> connection_;
};

TEST_F(RunEndpointsTest, AnswersAsDocumented) {
  EXPECT_EQ(endpoints_->url(), "http://127.0.0.1:" + std::to_string(endpoints_->port()));
  EXPECT_EQ(Get("/healthz").status, 200);
  EXPECT_EQ(Get("/healthz").body, "ok");
  EXPECT_EQ(Get("/readyz").status, 200);
  auto metrics = Get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(metrics.body, "# TYPE x gauge\nx 1\n");
  auto info = Get("/info");
  EXPECT_EQ(info.status, 200);
  EXPECT_EQ(info.headers["content-type"], "application/json");
  EXPECT_EQ(info.body, R"({"leaderElection":{"leaderId":"a","role":"r","isLeader":true}})");
}

TEST_F(RunEndpointsTest, FailingChecksAnswer503WithTheReason) {
  healthy_ = false;
  ready_ = false;
  auto health = Get("/healthz");
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.body, "[-]leaderElection failed: lease not renewed\nhealthz check failed\n");
  auto ready = Get("/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body, "[-]leaderElection: not leading\nreadyz check failed\n");
}

TEST_F(RunEndpointsTest, UnknownPathsAndMethodsAreRefused) {
  EXPECT_EQ(Get("/").status, 404);
  EXPECT_EQ(Get("/metrics/x").status, 404);
  EXPECT_EQ(Get("/info", "POST").status, 405);
}

TEST(ListenAddressTest, ParsesTheAcceptedForms) {
  std::string host;
  uint16_t port = 0;
  ASSERT_TRUE(ParseListenAddress("0.0.0.0:8080", host, port).ok());
  EXPECT_EQ(host, "0.0.0.0");
  EXPECT_EQ(port, 8080);
  ASSERT_TRUE(ParseListenAddress(":9090", host, port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9090);
  ASSERT_TRUE(ParseListenAddress("9091", host, port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  ASSERT_TRUE(ParseListenAddress("[::1]:0", host, port).ok());
  EXPECT_EQ(host, "::1");
  for (const char* bad : {"", "host:", "host:http", "1:70000", ":-1", "8080x"}) {
    EXPECT_FALSE(ParseListenAddress(bad, host, port).ok()) << bad;
  }
}

TEST(ListenAddressTest, StartReportsABadAddress) {
  EXPECT_FALSE(RunEndpoints::Start("nonsense:port", {}).ok());
}

}  // namespace
}  // namespace tenure::cli
