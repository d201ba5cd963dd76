// In-process server tests over real HTTPS connections: compare-and-swap from many clients, and
// watch resume. They also run under ThreadSanitizer.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "client/http_connection.h"
#include "server/server.h"
#include "server/test_server_fixture.h"

namespace tenure::server {
namespace {

using nlohmann::json;
using testing::ServerFixture;

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

TEST_F(ServerFixture, CompareAndSwapFromSixteenClientsLosesNoUpdate) {
  client::HttpConnection setup(endpoint());
  int status = 0;
  Call(
      setup, "POST", kLeases,
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"cas"},"spec":{"leaseTransitions":0}})",
      &status);
  ASSERT_EQ(status, 201);

  constexpr int kClients = 16, kSuccessesEach = 25;
  std::mutex mu;
  std::set<std::string> versions;
  int acknowledged = 0;
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      client::HttpConnection c(endpoint());
      int done = 0;
      for (int tries = 0; done < kSuccessesEach && tries < 5000; ++tries) {
        int code = 0;
        json lease = Call(c, "GET", std::string(kLeases) + "/cas", "", &code);
        if (code != 200) continue;
        lease["spec"]["leaseTransitions"] = lease["spec"]["leaseTransitions"].get<int>() + 1;
        json updated = Call(c, "PUT", std::string(kLeases) + "/cas", lease.dump(), &code);
        if (code == 409) continue;
        ASSERT_EQ(code, 200) << updated.dump();
        std::lock_guard lock(mu);
        EXPECT_TRUE(
            versions.insert(updated["metadata"]["resourceVersion"].get<std::string>()).second);
        ++acknowledged;
        ++done;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(acknowledged, kClients * kSuccessesEach);
  json final_lease = Call(setup, "GET", std::string(kLeases) + "/cas", "");
  EXPECT_EQ(final_lease["spec"]["leaseTransitions"].get<int>(), acknowledged);
}

TEST_F(ServerFixture, WatchResumesFromAnOlderResourceVersionAndReportsExpiredHistory) {
  client::HttpConnection c(endpoint());
  int status = 0;
  json created = Call(
      c, "POST", kLeases,
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"w"},"spec":{"holderIdentity":"a"}})",
      &status);
  ASSERT_EQ(status, 201);
  std::string start = created["metadata"]["resourceVersion"];
  std::vector<std::string> written;
  for (int i = 0; i < 5; ++i) {
    json patched = Call(c, "PATCH", std::string(kLeases) + "/w",
                        json{{"spec", {{"holderIdentity", "h" + std::to_string(i)}}}}.dump());
    written.push_back(patched["metadata"]["resourceVersion"]);
  }
  client::HttpConnection watcher(endpoint());
  auto head = watcher.StartStream(std::string(kLeases) + "?watch=true&resourceVersion=" + start,
                                  headers(), std::chrono::seconds(5));
  ASSERT_TRUE(head.ok());
  ASSERT_EQ(head->status, 200);
  for (int i = 0; i < 5; ++i) {
    auto line = watcher.ReadLine(std::chrono::seconds(5));
    ASSERT_TRUE(line.ok()) << line.status().ToString();
    json event = json::parse(*line);
    EXPECT_EQ(event["type"], "MODIFIED");
    EXPECT_EQ(event["object"]["metadata"]["resourceVersion"], written[i]);
    EXPECT_EQ(event["object"]["spec"]["holderIdentity"], "h" + std::to_string(i));
  }
  // Push the start revision out of the 50-event history.
  for (int i = 0; i < 60; ++i) {
    Call(c, "PATCH", std::string(kLeases) + "/w",
         json{{"spec", {{"holderIdentity", "x" + std::to_string(i)}}}}.dump());
  }
  client::HttpConnection late(endpoint());
  head = late.StartStream(std::string(kLeases) + "?watch=true&resourceVersion=" + start, headers(),
                          std::chrono::seconds(5));
  ASSERT_TRUE(head.ok());
  auto line = late.ReadLine(std::chrono::seconds(5));
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  json event = json::parse(*line);
  EXPECT_EQ(event["type"], "ERROR");
  EXPECT_EQ(event["object"]["code"], 410);
  EXPECT_EQ(event["object"]["reason"], "Expired");
}

// As kube-apiserver: no credentials make an anonymous request, which RBAC refuses (403); a token
// no one knows is 401. Neither changes anything.
TEST_F(ServerFixture, AnonymousRequestsAreForbiddenAndUnknownTokensUnauthorized) {
  const std::string body =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"x"}})";
  client::HttpConnection c(endpoint());
  auto reply = c.Request("POST", kLeases, {{"Content-Type", "application/json"}}, body,
                         std::chrono::seconds(5));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, 403);
  EXPECT_EQ(json::parse(reply->body)["message"],
            "leases.coordination.k8s.io is forbidden: User \"system:anonymous\" cannot create "
            "resource \"leases\" in API group \"coordination.k8s.io\" in the namespace "
            "\"default\"");
  reply = c.Request("POST", kLeases,
                    {{"Content-Type", "application/json"}, {"Authorization", "Bearer nobody"}},
                    body, std::chrono::seconds(5));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, 401);
  int status = 0;
  Call(c, "GET", std::string(kLeases) + "/x", "", &status);
  EXPECT_EQ(status, 404);
}

}  // namespace
}  // namespace tenure::server
