// Tests of ParseLeaseRef, DescribeError and LeaseApi::LeasesPath (no server needed).
#include "cli/lease_api.h"

#include <gtest/gtest.h>

namespace tenure::cli {
namespace {

TEST(ParseLeaseRefTest, NamespaceSlashNameOrNameInTheFallbackNamespace) {
  auto full = ParseLeaseRef("kube-system/scheduler", "default");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->first, "kube-system");
  EXPECT_EQ(full->second, "scheduler");
  auto bare = ParseLeaseRef("scheduler", "prod");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->first, "prod");
  EXPECT_EQ(bare->second, "scheduler");
}

TEST(ParseLeaseRefTest, MalformedReferencesAreBadRequests) {
  for (const char* text : {"", "/x", "ns/", "a/b/c", "/"}) {
    auto ref = ParseLeaseRef(text, "default");
    ASSERT_FALSE(ref.ok()) << text;
    EXPECT_EQ(ref.status().reason(), Reason::kBadRequest);
    EXPECT_EQ(ref.status().message(), "\"" + std::string(text) + "\" is not NAMESPACE/NAME");
  }
}

TEST(DescribeErrorTest, ServerAnswersReadLikeKubectl) {
  EXPECT_EQ(
      DescribeError(Status::NotFound("leases.coordination.k8s.io \"x\" not found"), "https://h:1"),
      "Error from server (NotFound): leases.coordination.k8s.io \"x\" not found");
  EXPECT_EQ(DescribeError(Status::Conflict("the object has been modified"), "https://h:1"),
            "Error from server (Conflict): the object has been modified");
}

TEST(DescribeErrorTest, NoAnswerNamesTheServer) {
  EXPECT_EQ(
      DescribeError(Status::Unavailable("connecting to h:1: Connection refused"), "https://h:1"),
      "cannot reach the API server at https://h:1: connecting to h:1: Connection refused");
  EXPECT_EQ(DescribeError(Status::Timeout("GET h:1: timed out"), "https://h:1"),
            "cannot reach the API server at https://h:1: GET h:1: timed out");
}

TEST(LeaseApiTest, LeasesPathForOneOrEveryNamespace) {
  EXPECT_EQ(LeaseApi::LeasesPath("kube-system"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
  EXPECT_EQ(LeaseApi::LeasesPath(""), "/apis/coordination.k8s.io/v1/leases");
}

}  // namespace
}  // namespace tenure::cli
