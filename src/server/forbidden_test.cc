// Tests of ForbiddenStatus: kube-apiserver's 403 wording and details.
#include "server/forbidden.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/status_object.h"

namespace tenure::server {
namespace {

TEST(ForbiddenTest, ResourceRequestsInANamespaceAndAtTheClusterScope) {
  AuthorizationAttributes a;
  a.user.name = "system:serviceaccount:ns:sa";
  a.verb = "update";
  a.api_group = "coordination.k8s.io";
  a.resource = "leases";
  a.namespace_ = "ns";
  a.name = "lock";
  Status s = ForbiddenStatus(a, "");
  EXPECT_EQ(s.code(), 403);
  EXPECT_EQ(s.message(),
            "leases.coordination.k8s.io \"lock\" is forbidden: User "
            "\"system:serviceaccount:ns:sa\" cannot update resource \"leases\" in API group "
            "\"coordination.k8s.io\" in the namespace \"ns\"");
  nlohmann::json body = nlohmann::json::parse(api::StatusToJsonText(s));
  EXPECT_EQ(body["reason"], "Forbidden");
  EXPECT_EQ(body["code"], 403);
  EXPECT_EQ(
      body["details"],
      nlohmann::json({{"group", "coordination.k8s.io"}, {"kind", "leases"}, {"name", "lock"}}));

  AuthorizationAttributes list;
  list.user.name = "u";
  list.verb = "list";
  list.resource = "namespaces";
  list.subresource = "status";
  EXPECT_EQ(ForbiddenStatus(list, "RBAC: clusterrole.rbac.authorization.k8s.io \"x\" not found")
                .message(),
            "namespaces is forbidden: User \"u\" cannot list resource \"namespaces/status\" in API "
            "group \"\" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io \"x\" "
            "not found");
}

TEST(ForbiddenTest, PathsAndEscaping) {
  AuthorizationAttributes a;
  a.user.name = "u<script>&";
  a.verb = "get";
  a.resource_request = false;
  a.path = "/foo";
  EXPECT_EQ(ForbiddenStatus(a, "").message(),
            "forbidden: User \"u&lt;script&gt;&amp;\" cannot get path \"/foo\"");
}

}  // namespace
}  // namespace tenure::server
