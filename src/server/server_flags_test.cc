// --feature-gates and --runtime-config values: each gate sets its option; anything else is a
// BadRequest naming the flag or the gate.
#include <gtest/gtest.h>

#include "server/server.h"

namespace tenure::server {
namespace {

TEST(FeatureGatesTest, EachGateSetsItsOption) {
  ServerOptions options;
  ASSERT_TRUE(options.coordinated_leader_election);
  ASSERT_TRUE(options.etcd.reads_from_watch_cache);
  ASSERT_TRUE(
      ApplyFeatureGates("CoordinatedLeaderElection=false,ConsistentListFromCache=false", options)
          .ok());
  EXPECT_FALSE(options.coordinated_leader_election);
  EXPECT_FALSE(options.etcd.reads_from_watch_cache);
  ASSERT_TRUE(ApplyFeatureGates("ConsistentListFromCache", options).ok());  // no value: true
  EXPECT_TRUE(options.etcd.reads_from_watch_cache);
}

TEST(FeatureGatesTest, AnUnknownGateOrAValueNotTrueOrFalseIsRefused) {
  ServerOptions options;
  Status unknown = ApplyFeatureGates("WatchList=true", options);
  EXPECT_EQ(unknown.reason(), Reason::kBadRequest);
  EXPECT_NE(unknown.message().find("WatchList"), std::string::npos) << unknown.message();
  Status bad = ApplyFeatureGates("ConsistentListFromCache=yes", options);
  EXPECT_EQ(bad.reason(), Reason::kBadRequest);
  EXPECT_NE(bad.message().find("--feature-gates"), std::string::npos) << bad.message();
  EXPECT_TRUE(options.etcd.reads_from_watch_cache);
}

TEST(RuntimeConfigTest, OnlyTheCoordinationVersionsAndAllCanBeSwitched) {
  ServerOptions options;
  ASSERT_TRUE(ApplyRuntimeConfig("coordination.k8s.io/v1beta1=false", options).ok());
  EXPECT_FALSE(options.runtime_config.at("coordination.k8s.io/v1beta1"));
  EXPECT_EQ(ApplyRuntimeConfig("apps/v1=false", options).reason(), Reason::kBadRequest);
}

}  // namespace
}  // namespace tenure::server
