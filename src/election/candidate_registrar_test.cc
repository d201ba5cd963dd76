// CandidateRegistrar input checks (no server needed): bad options fail early with the API
// server's own messages. The registrar against a server is tested in
// tests/cpp/candidate_registrar_server_test.cc.
#include <gtest/gtest.h>

#include "client/kube_client.h"
#include "election/cluster_access.h"
#include "tenure/candidate.h"

namespace tenure {
namespace {

CandidateOptions Good() {
  CandidateOptions o;
  o.namespace_ = "ns";
  o.identity = "kcm-1";
  o.lease_name = "kube-controller-manager";
  o.binary_version = "1.34.0";
  o.emulation_version = "1.33.0";
  return o;
}

TEST(CandidateOptionsTest, AGoodCandidatePasses) {
  EXPECT_TRUE(ValidateCandidateOptions(Good()).ok());
  CandidateOptions third_party = Good();
  third_party.strategy = "example.com/mine";
  third_party.emulation_version = "";  // only OldestEmulationVersion needs it
  EXPECT_TRUE(ValidateCandidateOptions(third_party).ok());
  EXPECT_EQ(Good().strategy, "OldestEmulationVersion");
  EXPECT_EQ(Good().renew_interval, std::chrono::minutes(5));
}

TEST(CandidateOptionsTest, VersionsMustBeStrictSemverWithEmulationNotAboveBinary) {
  CandidateOptions o = Good();
  o.binary_version = "1.33";
  Status s = ValidateCandidateOptions(o);
  EXPECT_EQ(s.reason(), Reason::kInvalid);
  // kube-apiserver's message (it also compares the unparsable version, as 0.0.0).
  EXPECT_EQ(s.message().rfind("LeaseCandidate.coordination.k8s.io \"kcm-1\" is invalid: [", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find("spec.binaryVersion: Invalid value: \"1.33\": must be a valid "
                             "semantic version"),
            std::string::npos)
      << s.message();
  o = Good();
  o.emulation_version = "v1.33.0";
  EXPECT_NE(ValidateCandidateOptions(o).message().find("spec.emulationVersion"), std::string::npos);
  o = Good();
  o.emulation_version = "1.35.0";
  EXPECT_NE(ValidateCandidateOptions(o).message().find(
                "must be greater than or equal to `emulationVersion`"),
            std::string::npos);
  o = Good();
  o.emulation_version = "";
  EXPECT_NE(ValidateCandidateOptions(o).message().find(
                "must be specified when `strategy` is 'OldestEmulationVersion'"),
            std::string::npos);
}

TEST(CandidateOptionsTest, StrategyLeaseNameAndIdentityAreRequired) {
  CandidateOptions o = Good();
  o.strategy = "";
  EXPECT_NE(ValidateCandidateOptions(o).message().find("spec.strategy: Required value"),
            std::string::npos);
  o = Good();
  o.strategy = "Newest";
  EXPECT_NE(ValidateCandidateOptions(o).message().find("Unsupported value: \"Newest\""),
            std::string::npos);
  o = Good();
  o.lease_name = "";
  EXPECT_NE(ValidateCandidateOptions(o).message().find("spec.leaseName: Required value"),
            std::string::npos);
  o = Good();
  o.identity = "";
  EXPECT_EQ(ValidateCandidateOptions(o).message(), "candidate identity is empty");
  o = Good();
  o.identity = "a/b";
  EXPECT_EQ(ValidateCandidateOptions(o).reason(), Reason::kInvalid);
  o = Good();
  o.renew_interval = std::chrono::seconds(0);
  EXPECT_EQ(ValidateCandidateOptions(o).message(), "renew interval must be greater than zero");
}

TEST(CandidateOptionsTest, StartRejectsBadOptionsBeforeAnyRequest) {
  client::ClusterConfig config;
  ASSERT_TRUE(client::ParseServerUrl("https://127.0.0.1:1", config).ok());  // nothing listens
  auto kube = client::KubeClient::Create(config);
  ASSERT_TRUE(kube.ok()) << kube.status().ToString();
  auto cluster = ClusterAccess::Wrap(*kube);
  CandidateOptions o = Good();
  o.emulation_version = "1.35.0";
  auto registrar = CandidateRegistrar::Start(cluster, o);
  ASSERT_FALSE(registrar.ok());
  EXPECT_EQ(registrar.status().reason(), Reason::kInvalid);
  EXPECT_EQ(cluster->requests(), 0u);
}

}  // namespace
}  // namespace tenure
