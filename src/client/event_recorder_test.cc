// Tests of EventRecorder against an HttpStandIn: where an Event is posted.
#include "client/event_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/http_stand_in_test_util.h"
#include "client/kube_client.h"

namespace tenure::client {
namespace {

using ::testing::StartsWith;

std::shared_ptr<KubeClient> ClientOf(const HttpStandIn& server) {
  EXPECT_TRUE(server.ok());
  ClusterConfig config;
  EXPECT_TRUE(UseServers(config, {server.url()}).ok());
  return *KubeClient::Create(config);
}

TEST(EventRecorderTest, PostsIntoTheSubjectsNamespace) {
  HttpStandIn server;
  EventRecorder recorder(ClientOf(server), "tenure", "me");
  recorder.Record({"coordination.k8s.io/v1", "Lease", "kube-system", "leader", "u1"}, "Normal",
                  "LeaderElection", "me became leader");
  auto lines = server.WaitForRequests(1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], StartsWith("POST /api/v1/namespaces/kube-system/events?timeout="));
}

// The namespace is one path segment, whatever it holds: unencoded, "a b" broke the request line
// and "x/leases" named another collection.
TEST(EventRecorderTest, EncodesTheNamespaceInThePath) {
  HttpStandIn server;
  EventRecorder recorder(ClientOf(server), "tenure", "me");
  recorder.Record({"v1", "ConfigMap", "a b", "cm", ""}, "Normal", "LeaderElection", "x");
  recorder.Record({"v1", "ConfigMap", "x/leases?y", "cm", ""}, "Normal", "LeaderElection", "x");
  auto lines = server.WaitForRequests(2);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], StartsWith("POST /api/v1/namespaces/a%20b/events?timeout="));
  EXPECT_THAT(lines[1], StartsWith("POST /api/v1/namespaces/x%2Fleases%3Fy/events?timeout="));
}

}  // namespace
}  // namespace tenure::client
