// Tests of escalation prevention's rule coverage (kube's Covers) and its compact rule text.
#include "server/rbac_escalation.h"

#include <gtest/gtest.h>

namespace tenure::server {
namespace {

api::PolicyRule Rule(std::vector<std::string> groups, std::vector<std::string> resources,
                     std::vector<std::string> verbs, std::vector<std::string> names = {}) {
  return {.verbs = std::move(verbs),
          .api_groups = std::move(groups),
          .resources = std::move(resources),
          .resource_names = std::move(names)};
}

api::PolicyRule Urls(std::vector<std::string> urls, std::vector<std::string> verbs) {
  return {.verbs = std::move(verbs), .non_resource_urls = std::move(urls)};
}

TEST(RbacEscalationTest, StarsAndExactValuesCover) {
  EXPECT_TRUE(Uncovered({Rule({"*"}, {"*"}, {"*"})}, {Rule({"g"}, {"r", "r/s"}, {"get"})}).empty());
  EXPECT_TRUE(
      Uncovered({Rule({"g"}, {"r"}, {"get", "list"})}, {Rule({"g"}, {"r"}, {"list"})}).empty());
  EXPECT_EQ(Uncovered({Rule({"g"}, {"r"}, {"get"})}, {Rule({"g"}, {"r"}, {"get", "delete"})}),
            (std::vector<api::PolicyRule>{Rule({"g"}, {"r"}, {"delete"})}));
}

TEST(RbacEscalationTest, SubresourcesNeedTheirOwnOrAStarSlashRule) {
  EXPECT_FALSE(
      Uncovered({Rule({"g"}, {"r"}, {"get"})}, {Rule({"g"}, {"r/status"}, {"get"})}).empty());
  EXPECT_TRUE(Uncovered({Rule({"g"}, {"*/status"}, {"get"})}, {Rule({"g"}, {"r/status"}, {"get"})})
                  .empty());
}

TEST(RbacEscalationTest, NamesNarrowAndUrlsMatchByPrefix) {
  // A rule with names covers only those names; a rule without names covers every name.
  EXPECT_TRUE(
      Uncovered({Rule({"g"}, {"r"}, {"get"})}, {Rule({"g"}, {"r"}, {"get"}, {"a"})}).empty());
  EXPECT_FALSE(
      Uncovered({Rule({"g"}, {"r"}, {"get"}, {"a"})}, {Rule({"g"}, {"r"}, {"get"})}).empty());
  EXPECT_FALSE(
      Uncovered({Rule({"g"}, {"r"}, {"get"}, {"a"})}, {Rule({"g"}, {"r"}, {"get"}, {"a", "b"})})
          .empty());
  EXPECT_TRUE(Uncovered({Urls({"/apis/*"}, {"get"})}, {Urls({"/apis/x/v1"}, {"get"})}).empty());
  EXPECT_FALSE(Uncovered({Urls({"/apis"}, {"get"})}, {Urls({"/apis/x"}, {"get"})}).empty());
}

TEST(RbacEscalationTest, CompactStringIsKubes) {
  EXPECT_EQ(CompactString(Rule({"coordination.k8s.io"}, {"leases"}, {"get", "update"}, {"l"})),
            "{APIGroups:[\"coordination.k8s.io\"], Resources:[\"leases\"], ResourceNames:[\"l\"], "
            "Verbs:[\"get\" \"update\"]}");
  EXPECT_EQ(CompactString(Urls({"/healthz"}, {"get"})),
            "{NonResourceURLs:[\"/healthz\"], Verbs:[\"get\"]}");
}

TEST(RbacEscalationTest, RulesForCollectsClusterAndNamespaceBindings) {
  RbacPolicy policy;
  api::Role reader;
  reader.metadata.name = "reader";
  reader.rules = {Rule({""}, {"configmaps"}, {"get"})};
  policy.cluster_roles.push_back(reader);
  api::RoleBinding binding;
  binding.metadata.name = "b";
  binding.metadata.namespace_ = "team";
  binding.subjects = {{.kind = "User", .name = "u"}};
  binding.role_ref = {
      .api_group = "rbac.authorization.k8s.io", .kind = "ClusterRole", .name = "reader"};
  policy.role_bindings.push_back(binding);
  UserInfo user{.name = "u"};
  EXPECT_EQ(RulesFor(policy, user, "team").size(), 1u);
  EXPECT_TRUE(RulesFor(policy, user, "other").empty());
  EXPECT_TRUE(RulesFor(policy, user, "").empty());
  std::vector<std::string> errors;
  binding.role_ref.name = "missing";
  policy.role_bindings.push_back(binding);
  RulesFor(policy, user, "team", &errors);
  EXPECT_EQ(errors, std::vector<std::string>{
                        "clusterroles.rbac.authorization.k8s.io \"missing\" not found"});
}

}  // namespace
}  // namespace tenure::server
