// Tests of the RBAC kinds' validation: kube-apiserver's messages for rules, subjects and the role
// reference, and roleRef's immutability.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/kinds.h"

namespace tenure::api {
namespace {

using nlohmann::json;

json Object(std::string_view kind, json metadata, json fields) {
  json o = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
            {"kind", kind},
            {"metadata", std::move(metadata)}};
  for (auto& [key, value] : fields.items()) o[key] = value;
  return o;
}

Status Create(const KindInfo& kind, const json& object) {
  auto canonical = Canonicalize(kind, object, {});
  if (!canonical.ok()) return canonical.status();
  return ValidateCreate(kind, *canonical);
}

TEST(RbacValidationTest, ARoleOfResourceRulesIsValid) {
  json role = Object("Role", {{"name", "lease-writer"}, {"namespace", "default"}},
                     {{"rules",
                       {{{"apiGroups", {"coordination.k8s.io"}},
                         {"resources", {"leases"}},
                         {"resourceNames", {"my-lock"}},
                         {"verbs", {"get", "update"}}}}}});
  EXPECT_TRUE(Create(RoleKind(), role).ok());
}

TEST(RbacValidationTest, RulesNeedVerbsGroupsAndResources) {
  json role =
      Object("Role", {{"name", "r"}, {"namespace", "default"}}, {{"rules", {json::object()}}});
  Status s = Create(RoleKind(), role);
  EXPECT_EQ(s.code(), 422);
  EXPECT_EQ(s.message(),
            "Role.rbac.authorization.k8s.io \"r\" is invalid: [rules[0].verbs: Required value: "
            "verbs must contain at least one value, rules[0].apiGroups: Required value: resource "
            "rules must supply at least one api group, rules[0].resources: Required value: "
            "resource rules must supply at least one resource]");
}

TEST(RbacValidationTest, ARoleCannotNameUrlsAndARuleCannotMixThem) {
  json role = Object(
      "Role", {{"name", "r"}, {"namespace", "default"}},
      {{"rules",
        {{{"nonResourceURLs", {"/healthz"}}, {"resources", {"leases"}}, {"verbs", {"get"}}}}}});
  EXPECT_EQ(Create(RoleKind(), role).message(),
            "Role.rbac.authorization.k8s.io \"r\" is invalid: [rules[0].nonResourceURLs: Invalid "
            "value: []string{\"/healthz\"}: namespaced rules cannot apply to non-resource URLs, "
            "rules[0].nonResourceURLs: Invalid value: []string{\"/healthz\"}: rules cannot apply "
            "to both regular resources and non-resource URLs]");
  json cluster_role =
      Object("ClusterRole", {{"name", "health"}},
             {{"rules", {{{"nonResourceURLs", {"/healthz"}}, {"verbs", {"get"}}}}}});
  EXPECT_TRUE(Create(ClusterRoleKind(), cluster_role).ok());
}

TEST(RbacValidationTest, BindingsCheckTheRoleReferenceAndSubjects) {
  json binding = Object(
      "ClusterRoleBinding", {{"name", "b"}},
      {{"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "x"}}},
       {"subjects",
        {{{"kind", "ServiceAccount"}, {"name", "app"}},
         {{"kind", "User"}, {"apiGroup", "example.com"}, {"name", "u"}},
         {{"kind", "Robot"}, {"name", "r"}}}}});
  EXPECT_EQ(Create(ClusterRoleBindingKind(), binding).message(),
            "ClusterRoleBinding.rbac.authorization.k8s.io \"b\" is invalid: [roleRef.kind: "
            "Unsupported value: \"Role\": supported values: \"ClusterRole\", "
            "subjects[0].namespace: Required value, subjects[1].apiGroup: Unsupported value: "
            "\"example.com\": supported values: \"rbac.authorization.k8s.io\", subjects[2].kind: "
            "Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", "
            "\"Group\"]");
}

TEST(RbacValidationTest, TheRoleReferenceIsImmutable) {
  auto make = [](const char* role) {
    json b = Object(
        "RoleBinding",
        {{"name", "b"},
         {"namespace", "default"},
         {"uid", "u1"},
         {"creationTimestamp", "2026-01-01T00:00:00Z"}},
        {{"roleRef",
          {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
         {"subjects",
          {{{"kind", "User"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", "u"}}}}});
    return *Canonicalize(RoleBindingKind(), b, {});
  };
  EXPECT_TRUE(ValidateUpdate(RoleBindingKind(), make("view"), make("view")).ok());
  Status s = ValidateUpdate(RoleBindingKind(), make("edit"), make("view"));
  EXPECT_EQ(s.message(),
            "RoleBinding.rbac.authorization.k8s.io \"b\" is invalid: roleRef: Invalid value: "
            "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", "
            "Name:\"edit\"}: cannot change roleRef");
}

}  // namespace
}  // namespace tenure::api
