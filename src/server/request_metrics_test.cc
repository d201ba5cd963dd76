// apiserver_request_total and apiserver_watch_events_total on a served /metrics: requests are
// counted by kube's metric verb and their status, watch events per watcher.
#include "server/request_metrics.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/http_connection.h"
#include "server/test_server_fixture.h"
#include "tenure/testing/waits.h"

namespace tenure::server {
namespace {

using nlohmann::json;
using tenure::testing::Eventually;
using testing::ServerFixture;

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

// The value of one exact sample line of the exposition ("" when absent).
std::string Sample(const std::string& metrics, const std::string& series) {
  size_t at = metrics.find("\n" + series + " ");
  if (at == std::string::npos) return "";
  size_t start = at + series.size() + 2;
  return metrics.substr(start, metrics.find('\n', start) - start);
}

class RequestMetricsTest : public ServerFixture {
 protected:
  std::string Scrape() {
    client::HttpConnection c(endpoint());
    auto reply = c.Request("GET", "/metrics", headers(), "", std::chrono::seconds(10));
    EXPECT_TRUE(reply.ok());
    return reply.ok() ? reply->body : "";
  }
};

TEST_F(RequestMetricsTest, RequestsAreCountedByVerbAndStatus) {
  client::HttpConnection c(endpoint());
  int status = 0;
  json created = Call(c, "POST", kLeases,
                      R"({"metadata":{"name":"m"},"spec":{"holderIdentity":"a"}})", &status);
  ASSERT_EQ(status, 201);
  Call(c, "POST", kLeases, R"({"metadata":{"name":"m"}})", &status);
  ASSERT_EQ(status, 409);
  for (int i = 0; i < 3; ++i) Call(c, "GET", std::string(kLeases) + "/m", "", &status);
  Call(c, "GET", kLeases, "", &status);
  created["spec"] = json::object();
  json put = Call(c, "PUT", std::string(kLeases) + "/m", created.dump(), &status);
  ASSERT_EQ(status, 200) << put.dump();
  Call(c, "GET", std::string(kLeases) + "/absent", "", &status);
  ASSERT_EQ(status, 404);
  std::string metrics = Scrape();
  EXPECT_EQ(Sample(metrics, R"(apiserver_request_total{code="201",verb="POST"})"), "1");
  EXPECT_EQ(Sample(metrics, R"(apiserver_request_total{code="409",verb="POST"})"), "1");
  EXPECT_EQ(Sample(metrics, R"(apiserver_request_total{code="200",verb="GET"})"), "3");
  EXPECT_EQ(Sample(metrics, R"(apiserver_request_total{code="200",verb="LIST"})"), "1");
  EXPECT_EQ(Sample(metrics, R"(apiserver_request_total{code="200",verb="PUT"})"), "1");
  EXPECT_EQ(Sample(metrics, R"(apiserver_request_total{code="404",verb="GET"})"), "1");
  // An unauthenticated request is counted too.
  auto anonymous =
      c.Request("GET", kLeases, {{"Authorization", "Bearer wrong"}}, "", std::chrono::seconds(10));
  ASSERT_TRUE(anonymous.ok());
  ASSERT_EQ(anonymous->status, 401);
  EXPECT_EQ(Sample(Scrape(), R"(apiserver_request_total{code="401",verb="LIST"})"), "1");
}

TEST_F(RequestMetricsTest, EveryWatcherCountsTheEventsItWasSent) {
  client::HttpConnection c(endpoint());
  int status = 0;
  Call(c, "POST", kLeases, R"({"metadata":{"name":"w"},"spec":{}})", &status);
  ASSERT_EQ(status, 201);
  json list = Call(c, "GET", kLeases, "");
  std::string rv = list["metadata"]["resourceVersion"];
  client::HttpConnection first(endpoint()), second(endpoint());
  for (auto* watcher : {&first, &second}) {
    auto head = watcher->StartStream(std::string(kLeases) + "?watch=true&resourceVersion=" + rv,
                                     headers(), std::chrono::seconds(5));
    ASSERT_TRUE(head.ok());
    ASSERT_EQ(head->status, 200);
  }
  for (int i = 0; i < 3; ++i) {
    Call(c, "PATCH", std::string(kLeases) + "/w",
         json{{"spec", {{"holderIdentity", "h" + std::to_string(i)}}}}.dump(), &status);
    ASSERT_EQ(status, 200);
  }
  for (auto* watcher : {&first, &second}) {
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(watcher->ReadLine(std::chrono::seconds(5)).ok());
  }
  const std::string series =
      R"(apiserver_watch_events_total{group="coordination.k8s.io",kind="Lease",version="v1"})";
  EXPECT_TRUE(Eventually([&] { return Sample(Scrape(), series) == "6"; })) << Scrape();
  EXPECT_EQ(Sample(Scrape(), R"(apiserver_request_total{code="200",verb="WATCH"})"), "2");
}

}  // namespace
}  // namespace tenure::server
