// Tests of AuthorizeRbac: every rule shape allowed and denied, bindings and their subjects,
// missing roles, and kube's reasons.
#include "server/rbac_authorizer.h"

#include <gtest/gtest.h>

namespace tenure::server {
namespace {

AuthorizationAttributes Resource(std::string verb, std::string group, std::string resource,
                                 std::string ns = "default", std::string name = "",
                                 std::string subresource = "") {
  AuthorizationAttributes a;
  a.user = {.name = "alice", .groups = {"team-a", "system:authenticated"}};
  a.verb = std::move(verb);
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.namespace_ = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(subresource);
  return a;
}

AuthorizationAttributes Path(std::string verb, std::string path) {
  AuthorizationAttributes a;
  a.user = {.name = "alice", .groups = {"system:authenticated"}};
  a.verb = std::move(verb);
  a.resource_request = false;
  a.path = std::move(path);
  return a;
}

api::PolicyRule Rule(std::vector<std::string> verbs, std::vector<std::string> groups,
                     std::vector<std::string> resources, std::vector<std::string> names = {}) {
  return {.verbs = std::move(verbs),
          .api_groups = std::move(groups),
          .resources = std::move(resources),
          .resource_names = std::move(names)};
}

constexpr const char* kCoordination = "coordination.k8s.io";

TEST(RuleAllowsTest, VerbsAndGroups) {
  auto rule = Rule({"get", "update"}, {kCoordination}, {"leases"});
  EXPECT_TRUE(RuleAllows(Resource("get", kCoordination, "leases"), rule));
  EXPECT_TRUE(RuleAllows(Resource("update", kCoordination, "leases"), rule));
  EXPECT_FALSE(RuleAllows(Resource("delete", kCoordination, "leases"), rule));
  EXPECT_FALSE(RuleAllows(Resource("get", "", "leases"), rule));
  EXPECT_TRUE(RuleAllows(Resource("delete", "x", "leases"), Rule({"*"}, {"*"}, {"leases"})));
  EXPECT_TRUE(RuleAllows(Resource("get", "", "configmaps"), Rule({"get"}, {""}, {"configmaps"})));
}

TEST(RuleAllowsTest, ResourcesAndSubresources) {
  auto status = Resource("update", kCoordination, "leases", "default", "x", "status");
  EXPECT_TRUE(RuleAllows(status, Rule({"update"}, {"*"}, {"*"})));
  EXPECT_FALSE(RuleAllows(status, Rule({"update"}, {"*"}, {"leases"})));
  EXPECT_TRUE(RuleAllows(status, Rule({"update"}, {"*"}, {"leases/status"})));
  EXPECT_TRUE(RuleAllows(status, Rule({"update"}, {"*"}, {"*/status"})));
  EXPECT_FALSE(RuleAllows(status, Rule({"update"}, {"*"}, {"*/scale"})));
  EXPECT_FALSE(RuleAllows(Resource("update", kCoordination, "leases"),
                          Rule({"update"}, {"*"}, {"*/status"})));
}

TEST(RuleAllowsTest, ResourceNamesNeedANamedRequest) {
  auto rule = Rule({"*"}, {kCoordination}, {"leases"}, {"mine"});
  EXPECT_TRUE(RuleAllows(Resource("get", kCoordination, "leases", "default", "mine"), rule));
  EXPECT_TRUE(RuleAllows(Resource("update", kCoordination, "leases", "default", "mine"), rule));
  EXPECT_FALSE(RuleAllows(Resource("get", kCoordination, "leases", "default", "other"), rule));
  // create and deletecollection carry no name; list and watch only with a name field selector.
  EXPECT_FALSE(RuleAllows(Resource("create", kCoordination, "leases"), rule));
  EXPECT_FALSE(RuleAllows(Resource("deletecollection", kCoordination, "leases"), rule));
  EXPECT_FALSE(RuleAllows(Resource("list", kCoordination, "leases"), rule));
  EXPECT_TRUE(RuleAllows(Resource("watch", kCoordination, "leases", "default", "mine"), rule));
}

TEST(RuleAllowsTest, NonResourceUrls) {
  api::PolicyRule rule{.verbs = {"get"}, .non_resource_urls = {"/healthz", "/apis/*"}};
  EXPECT_TRUE(RuleAllows(Path("get", "/healthz"), rule));
  EXPECT_FALSE(RuleAllows(Path("get", "/healthz/etcd"), rule));
  EXPECT_TRUE(RuleAllows(Path("get", "/apis/coordination.k8s.io"), rule));
  EXPECT_TRUE(RuleAllows(Path("get", "/apis/"), rule));
  EXPECT_FALSE(RuleAllows(Path("get", "/apis"), rule));
  EXPECT_FALSE(RuleAllows(Path("post", "/healthz"), rule));
  EXPECT_TRUE(RuleAllows(Path("post", "/anything"), {.verbs = {"*"}, .non_resource_urls = {"*"}}));
  // A resource rule never allows a path, nor a path rule a resource.
  EXPECT_FALSE(RuleAllows(Path("get", "/healthz"), Rule({"*"}, {"*"}, {"*"})));
  EXPECT_FALSE(RuleAllows(Resource("get", "", "configmaps"), rule));
}

class RbacTest : public ::testing::Test {
 protected:
  static api::Role MakeRole(std::string ns, std::string name, std::vector<api::PolicyRule> rules) {
    api::Role role;
    role.metadata.namespace_ = std::move(ns);
    role.metadata.name = std::move(name);
    role.rules = std::move(rules);
    return role;
  }
  static api::RoleBinding Binding(std::string ns, std::string name, api::RoleRef ref,
                                  std::vector<api::Subject> subjects) {
    api::RoleBinding binding;
    binding.metadata.namespace_ = std::move(ns);
    binding.metadata.name = std::move(name);
    binding.role_ref = std::move(ref);
    binding.subjects = std::move(subjects);
    return binding;
  }
  static api::Subject User(std::string name) {
    return {.kind = "User", .api_group = "rbac.authorization.k8s.io", .name = std::move(name)};
  }
  static api::Subject Group(std::string name) {
    return {.kind = "Group", .api_group = "rbac.authorization.k8s.io", .name = std::move(name)};
  }
  static api::RoleRef ClusterRoleRef(std::string name) {
    return {
        .api_group = "rbac.authorization.k8s.io", .kind = "ClusterRole", .name = std::move(name)};
  }
  static api::RoleRef RoleRefTo(std::string name) {
    return {.api_group = "rbac.authorization.k8s.io", .kind = "Role", .name = std::move(name)};
  }
  RbacPolicy policy_;
};

TEST_F(RbacTest, ClusterRoleBindingsApplyEverywhereRoleBindingsInTheirNamespace) {
  policy_.cluster_roles.push_back(
      MakeRole("", "lease-reader", {Rule({"get", "list", "watch"}, {kCoordination}, {"leases"})}));
  policy_.roles.push_back(
      MakeRole("team-a", "lease-writer", {Rule({"update"}, {kCoordination}, {"leases"})}));
  policy_.cluster_role_bindings.push_back(
      Binding("", "readers", ClusterRoleRef("lease-reader"), {Group("team-a")}));
  policy_.role_bindings.push_back(
      Binding("team-a", "writers", RoleRefTo("lease-writer"), {User("alice")}));
  policy_.role_bindings.push_back(
      Binding("team-b", "readers-b", ClusterRoleRef("lease-reader"), {User("bob")}));

  auto get = AuthorizeRbac(policy_, Resource("get", kCoordination, "leases", "elsewhere", "x"));
  EXPECT_TRUE(get.allowed);
  EXPECT_EQ(get.reason,
            "RBAC: allowed by ClusterRoleBinding \"readers\" of ClusterRole \"lease-reader\" to "
            "Group \"team-a\"");
  auto update = AuthorizeRbac(policy_, Resource("update", kCoordination, "leases", "team-a", "x"));
  EXPECT_TRUE(update.allowed);
  EXPECT_EQ(update.reason,
            "RBAC: allowed by RoleBinding \"writers/team-a\" of Role \"lease-writer\" to User "
            "\"alice\"");
  EXPECT_FALSE(
      AuthorizeRbac(policy_, Resource("update", kCoordination, "leases", "team-b", "x")).allowed);
  EXPECT_FALSE(
      AuthorizeRbac(policy_, Resource("update", kCoordination, "leases", "", "x")).allowed);
  // A RoleBinding of a ClusterRole grants it in the binding's namespace only.
  AuthorizationAttributes bob = Resource("get", kCoordination, "leases", "team-b", "x");
  bob.user = {.name = "bob"};
  EXPECT_TRUE(AuthorizeRbac(policy_, bob).allowed);
  bob.namespace_ = "team-a";
  EXPECT_FALSE(AuthorizeRbac(policy_, bob).allowed);
  EXPECT_EQ(AuthorizeRbac(policy_, bob).reason, "");
}

TEST_F(RbacTest, ServiceAccountSubjects) {
  api::Subject in_binding_namespace{.kind = "ServiceAccount", .name = "elector"};
  api::Subject elsewhere{.kind = "ServiceAccount", .name = "elector", .namespace_ = "ops"};
  EXPECT_TRUE(SubjectAppliesToUser(in_binding_namespace,
                                   {.name = "system:serviceaccount:apps:elector"}, "apps"));
  EXPECT_FALSE(SubjectAppliesToUser(in_binding_namespace,
                                    {.name = "system:serviceaccount:apps:elector"}, ""));
  EXPECT_TRUE(
      SubjectAppliesToUser(elsewhere, {.name = "system:serviceaccount:ops:elector"}, "apps"));
  EXPECT_FALSE(
      SubjectAppliesToUser(elsewhere, {.name = "system:serviceaccount:apps:elector"}, "apps"));
  EXPECT_FALSE(SubjectAppliesToUser({.kind = "Robot", .name = "alice"}, {.name = "alice"}, "a"));

  policy_.cluster_roles.push_back(MakeRole("", "all", {Rule({"*"}, {"*"}, {"*"})}));
  policy_.role_bindings.push_back(
      Binding("apps", "sa", ClusterRoleRef("all"), {in_binding_namespace}));
  AuthorizationAttributes sa = Resource("get", "", "configmaps", "apps");
  sa.user = {.name = "system:serviceaccount:apps:elector"};
  auto decision = AuthorizeRbac(policy_, sa);
  EXPECT_TRUE(decision.allowed);
  EXPECT_EQ(decision.reason,
            "RBAC: allowed by RoleBinding \"sa/apps\" of ClusterRole \"all\" to ServiceAccount "
            "\"elector/apps\"");
}

TEST_F(RbacTest, AMissingRoleIsAReasonNotAnError) {
  policy_.cluster_role_bindings.push_back(
      Binding("", "b", ClusterRoleRef("gone"), {User("alice")}));
  policy_.role_bindings.push_back(Binding("default", "rb", RoleRefTo("gone-too"), {User("alice")}));
  auto decision = AuthorizeRbac(policy_, Resource("get", "", "configmaps"));
  EXPECT_FALSE(decision.allowed);
  EXPECT_EQ(decision.reason,
            "RBAC: [clusterrole.rbac.authorization.k8s.io \"gone\" not found, "
            "role.rbac.authorization.k8s.io \"gone-too\" not found]");
  policy_.role_bindings.clear();
  EXPECT_EQ(AuthorizeRbac(policy_, Resource("get", "", "configmaps")).reason,
            "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found");
}

}  // namespace
}  // namespace tenure::server
