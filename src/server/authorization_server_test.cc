// Tests of authorization over the wire: token users get what RBAC grants them and kube's 403
// otherwise, the default policy (discovery, health, self reviews for everyone authenticated),
// resourceNames with field selectors, and a binding that takes effect with the next request.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "server/test_server_fixture.h"

namespace tenure::server {
namespace {

using nlohmann::json;
using testing::ServerFixture;

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
constexpr const char* kRbac = "/apis/rbac.authorization.k8s.io/v1";

class AuthorizationTest : public ServerFixture {
 protected:
  void Configure(ServerOptions& options) override {
    options.tokens.users["alice-token"] = {"alice", "1", {"team-a"}};
    options.tokens.users["bob-token"] = {"bob", "2", {}};
  }

  client::HttpReply As(const std::string& token, const std::string& method,
                       const std::string& target, const std::string& body = "") {
    client::HttpConnection c(endpoint());
    std::vector<std::pair<std::string, std::string>> h = {{"Content-Type", "application/json"}};
    if (!token.empty()) h.emplace_back("Authorization", "Bearer " + token);
    auto reply = c.Request(method, target, h, body, std::chrono::seconds(10));
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return reply.ok() ? std::move(*reply) : client::HttpReply{};
  }

  // As the admin: creates `object` at `collection`, expecting 201.
  void AdminCreate(const std::string& collection, const json& object) {
    client::HttpConnection c(endpoint());
    int status = 0;
    json reply = Call(c, "POST", collection, object.dump(), &status);
    ASSERT_EQ(status, 201) << reply.dump();
  }

  void GrantLeaseRole(const std::string& role, const json& rule, const std::string& user) {
    AdminCreate(std::string(kRbac) + "/namespaces/default/roles",
                {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                 {"kind", "Role"},
                 {"metadata", {{"name", role}}},
                 {"rules", {rule}}});
    AdminCreate(std::string(kRbac) + "/namespaces/default/rolebindings",
                {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                 {"kind", "RoleBinding"},
                 {"metadata", {{"name", role + "-" + user}}},
                 {"roleRef", {{"kind", "Role"}, {"name", role}}},
                 {"subjects", {{{"kind", "User"}, {"name", user}}}}});
  }

  static std::string Lease(const std::string& name) {
    return json{{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", name}}},
                {"spec", {{"holderIdentity", "a"}}}}
        .dump();
  }
};

TEST_F(AuthorizationTest, AUserWithoutBindingsGetsKubesForbiddenStatus) {
  client::HttpReply reply = As("bob-token", "PUT", std::string(kLeases) + "/lock", Lease("lock"));
  EXPECT_EQ(reply.status, 403);
  json status = json::parse(reply.body);
  EXPECT_EQ(status["reason"], "Forbidden");
  EXPECT_EQ(status["code"], 403);
  EXPECT_EQ(status["message"],
            "leases.coordination.k8s.io \"lock\" is forbidden: User \"bob\" cannot update "
            "resource \"leases\" in API group \"coordination.k8s.io\" in the namespace "
            "\"default\"");
  EXPECT_EQ(status["details"],
            json({{"name", "lock"}, {"group", "coordination.k8s.io"}, {"kind", "leases"}}));
}

TEST_F(AuthorizationTest, TheDefaultPolicyLetsEveryoneDiscoverAndProbe) {
  EXPECT_EQ(As("bob-token", "GET", "/apis").status, 200);
  EXPECT_EQ(As("bob-token", "GET", "/api/v1").status, 200);
  EXPECT_EQ(As("bob-token", "GET", "/openapi/v3").status, 200);
  EXPECT_EQ(As("", "GET", "/healthz").status, 200);
  EXPECT_EQ(As("", "GET", "/version").status, 200);
  client::HttpReply anonymous = As("", "GET", "/apis");
  EXPECT_EQ(anonymous.status, 403);
  EXPECT_EQ(json::parse(anonymous.body)["message"],
            "forbidden: User \"system:anonymous\" cannot get path \"/apis\"");
  EXPECT_EQ(json::parse(anonymous.body)["details"], json::object());
}

TEST_F(AuthorizationTest, ABindingTakesEffectWithTheNextRequest) {
  GrantLeaseRole("lease-user",
                 {{"apiGroups", {"coordination.k8s.io"}},
                  {"resources", {"leases"}},
                  {"verbs", {"get", "create", "update"}}},
                 "alice");
  EXPECT_EQ(As("alice-token", "POST", kLeases, Lease("a")).status, 201);
  EXPECT_EQ(As("alice-token", "GET", std::string(kLeases) + "/a").status, 200);
  EXPECT_EQ(As("alice-token", "DELETE", std::string(kLeases) + "/a").status, 403);
  // The role is bound in default only.
  EXPECT_EQ(As("alice-token", "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a")
                .status,
            403);
  EXPECT_EQ(As("bob-token", "GET", std::string(kLeases) + "/a").status, 403);
}

TEST_F(AuthorizationTest, ResourceNamesAllowOnlyNamedRequests) {
  GrantLeaseRole("one-lease",
                 {{"apiGroups", {"coordination.k8s.io"}},
                  {"resources", {"leases"}},
                  {"resourceNames", {"mine"}},
                  {"verbs", {"*"}}},
                 "alice");
  // create has no name: a rule with names never allows it.
  client::HttpReply create = As("alice-token", "POST", kLeases, Lease("mine"));
  EXPECT_EQ(create.status, 403);
  EXPECT_EQ(json::parse(create.body)["message"],
            "leases.coordination.k8s.io is forbidden: User \"alice\" cannot create resource "
            "\"leases\" in API group \"coordination.k8s.io\" in the namespace \"default\"");
  EXPECT_EQ(As("alice-token", "PUT", std::string(kLeases) + "/mine", Lease("mine")).status, 201);
  EXPECT_EQ(As("alice-token", "PUT", std::string(kLeases) + "/other", Lease("other")).status, 403);
  EXPECT_EQ(As("alice-token", "GET", kLeases).status, 403);
  EXPECT_EQ(
      As("alice-token", "GET", std::string(kLeases) + "?fieldSelector=metadata.name%3Dmine").status,
      200);
  EXPECT_EQ(As("alice-token", "GET", std::string(kLeases) + "?fieldSelector=metadata.name%3Dother")
                .status,
            403);
  EXPECT_EQ(As("alice-token", "DELETE", kLeases).status, 403);  // deletecollection
  EXPECT_EQ(As("alice-token", "DELETE", std::string(kLeases) + "/mine").status, 200);
}

TEST_F(AuthorizationTest, GroupsAndClusterBindingsApplyEverywhere) {
  AdminCreate(std::string(kRbac) + "/clusterrolebindings",
              {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRoleBinding"},
               {"metadata", {{"name", "team-a-edit"}}},
               {"roleRef", {{"kind", "ClusterRole"}, {"name", "edit"}}},
               {"subjects", {{{"kind", "Group"}, {"name", "team-a"}}}}});
  EXPECT_EQ(As("alice-token", "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
               Lease("x"))
                .status,
            201);
  // edit does not include RBAC objects.
  EXPECT_EQ(As("alice-token", "GET", std::string(kRbac) + "/clusterroles").status, 403);
}

TEST_F(AuthorizationTest, TheDefaultRolesAreThereAndSubjectsGetTheirApiGroup) {
  client::HttpConnection c(endpoint());
  int status = 0;
  json role = Call(c, "GET", std::string(kRbac) + "/clusterroles/cluster-admin", "", &status);
  ASSERT_EQ(status, 200);
  EXPECT_EQ(role["metadata"]["labels"]["kubernetes.io/bootstrapping"], "rbac-defaults");
  json binding =
      Call(c, "GET", std::string(kRbac) + "/clusterrolebindings/system:basic-user", "", &status);
  ASSERT_EQ(status, 200);
  EXPECT_EQ(binding["subjects"][0]["name"], "system:authenticated");
  GrantLeaseRole("r", {{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get"}}},
                 "carol");
  json made =
      Call(c, "GET", std::string(kRbac) + "/namespaces/default/rolebindings/r-carol", "", &status);
  EXPECT_EQ(made["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io");
  EXPECT_EQ(made["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
}

TEST_F(AuthorizationTest, TheRoleReferenceCannotChange) {
  GrantLeaseRole("r", {{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get"}}},
                 "carol");
  client::HttpConnection c(endpoint());
  int status = 0;
  json reply = Call(c, "PATCH", std::string(kRbac) + "/namespaces/default/rolebindings/r-carol",
                    R"({"roleRef":{"kind":"ClusterRole","name":"edit"}})", &status);
  EXPECT_EQ(status, 422);
  EXPECT_NE(reply["message"].get<std::string>().find("cannot change roleRef"), std::string::npos);
}

TEST_F(AuthorizationTest, NoOneGrantsRightsTheyDoNotHold) {
  // bob administers default: he may manage roles and bindings there.
  AdminCreate(std::string(kRbac) + "/namespaces/default/rolebindings",
              {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "RoleBinding"},
               {"metadata", {{"name", "bob-admin"}}},
               {"roleRef", {{"kind", "ClusterRole"}, {"name", "admin"}}},
               {"subjects", {{{"kind", "User"}, {"name", "bob"}}}}});
  auto role = [](const std::string& name, json rule) {
    return json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", "Role"},
                {"metadata", {{"name", name}}},
                {"rules", {std::move(rule)}}}
        .dump();
  };
  const std::string roles = std::string(kRbac) + "/namespaces/default/roles";
  EXPECT_EQ(As("bob-token", "POST", roles,
               role("lease-reader", {{"apiGroups", {"coordination.k8s.io"}},
                                     {"resources", {"leases"}},
                                     {"verbs", {"get", "list"}}}))
                .status,
            201);
  client::HttpReply refused =
      As("bob-token", "POST", roles,
         role("node-reader",
              {{"apiGroups", {""}}, {"resources", {"nodes"}}, {"verbs", {"get", "list"}}}));
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(json::parse(refused.body)["message"],
            "roles.rbac.authorization.k8s.io \"node-reader\" is forbidden: user \"bob\" "
            "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not "
            "currently held:\n{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\" "
            "\"list\"]}");
  auto binding = [](const std::string& name, const std::string& cluster_role) {
    return json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", "RoleBinding"},
                {"metadata", {{"name", name}}},
                {"roleRef", {{"kind", "ClusterRole"}, {"name", cluster_role}}},
                {"subjects", {{{"kind", "User"}, {"name", "alice"}}}}}
        .dump();
  };
  const std::string bindings = std::string(kRbac) + "/namespaces/default/rolebindings";
  EXPECT_EQ(As("bob-token", "POST", bindings, binding("alice-edit", "edit")).status, 201);
  refused = As("bob-token", "POST", bindings, binding("alice-root", "cluster-admin"));
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(json::parse(refused.body)["message"],
            "rolebindings.rbac.authorization.k8s.io \"alice-root\" is forbidden: user \"bob\" "
            "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not "
            "currently held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n"
            "{NonResourceURLs:[\"*\"], Verbs:[\"*\"]}");
  EXPECT_EQ(As("bob-token", "POST", bindings, binding("alice-ghost", "no-such-role")).status, 404);
  // A role bob already holds may also be changed by him, but not widened.
  EXPECT_EQ(As("bob-token", "PUT", roles + "/lease-reader",
               role("lease-reader",
                    {{"apiGroups", {"*"}}, {"resources", {"leases"}}, {"verbs", {"get"}}}))
                .status,
            403);
  // The admin may grant anything.
  client::HttpConnection c(endpoint());
  int status = 0;
  Call(c, "POST", bindings, binding("alice-root", "cluster-admin"), &status);
  EXPECT_EQ(status, 201);
}

constexpr const char* kAuthorization = "/apis/authorization.k8s.io/v1";

json AccessReview(json attributes, const char* kind = "SelfSubjectAccessReview") {
  return {
      {"apiVersion", "authorization.k8s.io/v1"}, {"kind", kind}, {"spec", std::move(attributes)}};
}

TEST_F(AuthorizationTest, SelfSubjectAccessReviewsAnswerForTheCaller) {
  GrantLeaseRole("lease-user",
                 {{"apiGroups", {"coordination.k8s.io"}},
                  {"resources", {"leases"}},
                  {"verbs", {"get", "update"}}},
                 "alice");
  const std::string url = std::string(kAuthorization) + "/selfsubjectaccessreviews";
  json update = AccessReview({{"resourceAttributes",
                               {{"namespace", "default"},
                                {"verb", "update"},
                                {"group", "coordination.k8s.io"},
                                {"resource", "leases"},
                                {"name", "x"}}}});
  client::HttpReply reply = As("alice-token", "POST", url, update.dump());
  ASSERT_EQ(reply.status, 201) << reply.body;
  json review = json::parse(reply.body);
  EXPECT_EQ(review["kind"], "SelfSubjectAccessReview");
  EXPECT_EQ(review["status"]["allowed"], true);
  EXPECT_EQ(review["status"]["reason"],
            "RBAC: allowed by RoleBinding \"lease-user-alice/default\" of Role \"lease-user\" to "
            "User \"alice\"");
  reply = As("bob-token", "POST", url, update.dump());
  ASSERT_EQ(reply.status, 201);
  EXPECT_EQ(json::parse(reply.body)["status"], json({{"allowed", false}}));
  json path = AccessReview({{"nonResourceAttributes", {{"path", "/healthz"}, {"verb", "get"}}}});
  EXPECT_EQ(json::parse(As("bob-token", "POST", url, path.dump()).body)["status"]["allowed"], true);
  client::HttpReply bad = As("bob-token", "POST", url, AccessReview(json::object()).dump());
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(json::parse(bad.body)["message"],
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
            "spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or "
            "resourceAttributes must be specified");
  // Only create is served (for a user RBAC lets list them: authorization comes first).
  EXPECT_EQ(As("bob-token", "GET", url).status, 403);
  EXPECT_EQ(As(server_->credentials().token, "GET", url).status, 405);
}

TEST_F(AuthorizationTest, SubjectAccessReviewsNeedTheirOwnRight) {
  json review =
      AccessReview({{"user", "alice"},
                    {"resourceAttributes",
                     {{"namespace", "default"}, {"verb", "get"}, {"resource", "configmaps"}}}},
                   "SubjectAccessReview");
  const std::string url = std::string(kAuthorization) + "/subjectaccessreviews";
  EXPECT_EQ(As("bob-token", "POST", url, review.dump()).status, 403);
  client::HttpConnection c(endpoint());
  int status = 0;
  json answer = Call(c, "POST", url, review.dump(), &status);
  EXPECT_EQ(status, 201);
  EXPECT_EQ(answer["status"]["allowed"], false);
  review["spec"]["groups"] = {"system:masters"};
  answer = Call(c, "POST", url, review.dump(), &status);
  EXPECT_EQ(answer["status"]["allowed"], true);
}

TEST_F(AuthorizationTest, RulesReviewListsWhatTheCallerHolds) {
  GrantLeaseRole("one-lease",
                 {{"apiGroups", {"coordination.k8s.io"}},
                  {"resources", {"leases"}},
                  {"resourceNames", {"mine"}},
                  {"verbs", {"get"}}},
                 "alice");
  const std::string url = std::string(kAuthorization) + "/selfsubjectrulesreviews";
  json request = {{"apiVersion", "authorization.k8s.io/v1"},
                  {"kind", "SelfSubjectRulesReview"},
                  {"spec", {{"namespace", "default"}}}};
  client::HttpReply reply = As("alice-token", "POST", url, request.dump());
  ASSERT_EQ(reply.status, 201) << reply.body;
  json status = json::parse(reply.body)["status"];
  EXPECT_EQ(status["incomplete"], false);
  EXPECT_TRUE(std::find(status["resourceRules"].begin(), status["resourceRules"].end(),
                        json({{"verbs", {"get"}},
                              {"apiGroups", {"coordination.k8s.io"}},
                              {"resources", {"leases"}},
                              {"resourceNames", {"mine"}}})) != status["resourceRules"].end())
      << status.dump();
  EXPECT_FALSE(status["nonResourceRules"].empty());  // system:discovery and the like
  request["spec"] = json::object();
  client::HttpReply bad = As("alice-token", "POST", url, request.dump());
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["message"], "no namespace on request");
}

TEST_F(AuthorizationTest, SelfSubjectReviewSaysWhoTheCallerIs) {
  const std::string url = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  const std::string body =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  client::HttpReply reply = As("alice-token", "POST", url, body);
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(
      json::parse(reply.body)["status"]["userInfo"],
      json({{"username", "alice"}, {"uid", "1"}, {"groups", {"team-a", "system:authenticated"}}}));
}

TEST_F(AuthorizationTest, ImpersonationIsAuthorizedValueByValue) {
  const std::string url = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  const std::string body =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  auto as = [&](const std::string& token,
                std::vector<std::pair<std::string, std::string>> impersonate) {
    client::HttpConnection c(endpoint());
    impersonate.emplace_back("Authorization", "Bearer " + token);
    impersonate.emplace_back("Content-Type", "application/json");
    auto reply = c.Request("POST", url, impersonate, body, std::chrono::seconds(10));
    EXPECT_TRUE(reply.ok());
    return reply.ok() ? std::move(*reply) : client::HttpReply{};
  };
  client::HttpReply refused = as("bob-token", {{"Impersonate-User", "alice"}});
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(json::parse(refused.body)["message"],
            "users \"alice\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in "
            "API group \"\" at the cluster scope");
  // The admin may impersonate anyone; the impersonated user is what the server sees.
  client::HttpReply seen =
      as(server_->credentials().token, {{"Impersonate-User", "system:serviceaccount:apps:runner"}});
  ASSERT_EQ(seen.status, 201) << seen.body;
  EXPECT_EQ(
      json::parse(seen.body)["status"]["userInfo"],
      json({{"username", "system:serviceaccount:apps:runner"},
            {"groups",
             {"system:serviceaccounts", "system:serviceaccounts:apps", "system:authenticated"}}}));
  seen = as(server_->credentials().token,
            {{"Impersonate-User", "carol"}, {"Impersonate-Group", "g1, g2"}});
  EXPECT_EQ(json::parse(seen.body)["status"]["userInfo"]["groups"],
            json({"g1", "g2", "system:authenticated"}));
  client::HttpReply no_user = as(server_->credentials().token, {{"Impersonate-Group", "g1"}});
  EXPECT_EQ(no_user.status, 400);
  EXPECT_EQ(json::parse(no_user.body)["message"],
            "requested [{Group  g1    }] without impersonating a user");
  // Rights to impersonate come from RBAC too: bob may act as users of team-a's kind.
  AdminCreate(std::string(kRbac) + "/clusterroles", {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                                     {"kind", "ClusterRole"},
                                                     {"metadata", {{"name", "impersonate-alice"}}},
                                                     {"rules",
                                                      {{{"apiGroups", {""}},
                                                        {"resources", {"users"}},
                                                        {"resourceNames", {"alice"}},
                                                        {"verbs", {"impersonate"}}}}}});
  AdminCreate(std::string(kRbac) + "/clusterrolebindings",
              {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRoleBinding"},
               {"metadata", {{"name", "bob-impersonates-alice"}}},
               {"roleRef", {{"kind", "ClusterRole"}, {"name", "impersonate-alice"}}},
               {"subjects", {{{"kind", "User"}, {"name", "bob"}}}}});
  seen = as("bob-token", {{"Impersonate-User", "alice"}});
  ASSERT_EQ(seen.status, 201) << seen.body;
  EXPECT_EQ(json::parse(seen.body)["status"]["userInfo"]["username"], "alice");
  EXPECT_EQ(
      as("bob-token", {{"Impersonate-User", "alice"}, {"Impersonate-Group", "system:masters"}})
          .status,
      403);
}

TEST_F(AuthorizationTest, ServiceAccountTokensAuthenticateUntilTheAccountGoes) {
  const std::string accounts = "/api/v1/namespaces/default/serviceaccounts";
  AdminCreate(accounts,
              {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "app"}}}});
  client::HttpConnection c(endpoint());
  int status = 0;
  const std::string request =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":900}})";
  json answer = Call(c, "POST", accounts + "/app/token", request, &status);
  ASSERT_EQ(status, 201) << answer.dump();
  EXPECT_EQ(answer["kind"], "TokenRequest");
  EXPECT_EQ(answer["spec"]["audiences"],
            json::array({"https://kubernetes.default.svc.cluster.local"}));
  const std::string token = answer["status"]["token"];
  const std::string whoami = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  const std::string review =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  client::HttpReply me = As(token, "POST", whoami, review);
  ASSERT_EQ(me.status, 201) << me.body;
  EXPECT_EQ(json::parse(me.body)["status"]["userInfo"]["username"],
            "system:serviceaccount:default:app");
  // Who may ask for tokens: create on serviceaccounts/token.
  client::HttpReply refused = As("bob-token", "POST", accounts + "/app/token", request);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(json::parse(refused.body)["message"],
            "serviceaccounts \"app\" is forbidden: User \"bob\" cannot create resource "
            "\"serviceaccounts/token\" in API group \"\" in the namespace \"default\"");
  // Bad requests, with kube's answers.
  json bad = Call(
      c, "POST", accounts + "/app/token",
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":60}})",
      &status);
  EXPECT_EQ(status, 422);
  EXPECT_EQ(bad["message"],
            "TokenRequest.authentication.k8s.io \"app\" is invalid: spec.expirationSeconds: "
            "Invalid value: 60: may not specify a duration less than 10 minutes");
  bad = Call(c, "POST", accounts + "/nobody/token", request, &status);
  EXPECT_EQ(status, 404);
  EXPECT_EQ(bad["message"], "serviceaccounts \"nobody\" not found");
  bad = Call(
      c, "POST", accounts + "/app/token",
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"name":"other"}})",
      &status);
  EXPECT_EQ(status, 422);
  // Deleting the account revokes its tokens; so does creating it again (another uid).
  Call(c, "DELETE", accounts + "/app", "", &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(As(token, "POST", whoami, review).status, 401);
  AdminCreate(accounts,
              {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "app"}}}});
  EXPECT_EQ(As(token, "POST", whoami, review).status, 401);
}

// The audit log over the wire: who did what to which lease, allowed or not, and who failed to
// authenticate.
class AuditTest : public AuthorizationTest {
 protected:
  void Configure(ServerOptions& options) override {
    AuthorizationTest::Configure(options);
    path_ = std::filesystem::temp_directory_path() /
            ("tenure-audit-" + std::to_string(::getpid()) + ".log");
    std::filesystem::remove(path_);
    options.audit_log = AuditLogOptions{.path = path_.string()};
  }
  void TearDown() override {
    AuthorizationTest::TearDown();
    std::filesystem::remove(path_);
  }
  std::vector<json> Events() const {
    std::vector<json> out;
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }
  std::filesystem::path path_;
};

TEST_F(AuditTest, EveryRequestIsRecordedWithItsUserDecisionAndObject) {
  GrantLeaseRole(
      "lease-user",
      {{"apiGroups", {"coordination.k8s.io"}}, {"resources", {"leases"}}, {"verbs", {"create"}}},
      "alice");
  ASSERT_EQ(As("alice-token", "POST", kLeases, Lease("mine")).status, 201);
  ASSERT_EQ(As("bob-token", "DELETE", std::string(kLeases) + "/mine").status, 403);
  ASSERT_EQ(As("nobody-token", "GET", kLeases).status, 401);
  std::vector<json> events = Events();
  auto find = [&](const std::string& user, const std::string& verb, const std::string& stage) {
    for (const json& e : events) {
      if (e["user"].value("username", "") == user && e["verb"] == verb && e["stage"] == stage) {
        return e;
      }
    }
    ADD_FAILURE() << "no " << stage << " event of " << user << " " << verb;
    return json();
  };
  json created = find("alice", "create", "ResponseComplete");
  EXPECT_EQ(created["apiVersion"], "audit.k8s.io/v1");
  EXPECT_EQ(created["level"], "Metadata");
  EXPECT_EQ(created["objectRef"]["name"], "mine");  // from the object written
  EXPECT_EQ(created["objectRef"]["namespace"], "default");
  EXPECT_EQ(created["responseStatus"]["code"], 201);
  EXPECT_EQ(created["annotations"]["authorization.k8s.io/decision"], "allow");
  EXPECT_EQ(created["sourceIPs"], json::array({"127.0.0.1"}));
  EXPECT_FALSE(created.contains("requestObject"));  // Metadata: no bodies
  json received = find("alice", "create", "RequestReceived");
  EXPECT_EQ(received["auditID"], created["auditID"]);
  json refused = find("bob", "delete", "ResponseComplete");
  EXPECT_EQ(refused["annotations"]["authorization.k8s.io/decision"], "forbid");
  EXPECT_EQ(refused["responseStatus"]["code"], 403);
  EXPECT_EQ(refused["responseStatus"]["reason"], "Forbidden");
  json unauthenticated = find("", "list", "ResponseComplete");
  EXPECT_EQ(unauthenticated["responseStatus"]["code"], 401);
  EXPECT_EQ(unauthenticated["user"], json::object());
}

// Paths that must not lend rights they do not carry (found in review): a watch right on the
// deprecated /watch/ path must not mint tokens, a namespace's rights must not reach
// cluster-scoped objects through a namespaced path, and an update or apply that creates needs
// the right to create.
TEST_F(AuthorizationTest, NoPathLendsRightsItDoesNotCarry) {
  const std::string accounts = "/api/v1/namespaces/default/serviceaccounts";
  AdminCreate(
      accounts,
      {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "deployer"}}}});
  // bob may do everything in default, and watch anything anywhere.
  AdminCreate(
      std::string(kRbac) + "/clusterroles",
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "ClusterRole"},
       {"metadata", {{"name", "watch-all"}}},
       {"rules",
        {{{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"get", "list", "watch"}}}}}});
  AdminCreate(std::string(kRbac) + "/clusterrolebindings",
              {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", "ClusterRoleBinding"},
               {"metadata", {{"name", "bob-watch-all"}}},
               {"roleRef", {{"kind", "ClusterRole"}, {"name", "watch-all"}}},
               {"subjects", {{{"kind", "User"}, {"name", "bob"}}}}});
  const std::string request =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})";
  EXPECT_EQ(As("bob-token", "POST",
               "/api/v1/watch/namespaces/default/serviceaccounts/deployer/token", request)
                .status,
            404);
  EXPECT_EQ(As("bob-token", "POST", accounts + "/deployer/token", request).status, 403);

  GrantLeaseRole("everything", {{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}},
                 "alice");
  EXPECT_EQ(As("alice-token", "GET", "/api/v1/namespaces/default/namespaces").status, 404);
  EXPECT_EQ(As("alice-token", "DELETE",
               std::string(kRbac) + "/namespaces/default/clusterrolebindings/bob-watch-all")
                .status,
            404);
  EXPECT_EQ(As("alice-token", "DELETE", "/api/v1/namespaces/default/namespaces/kube-system").status,
            404);
  client::HttpConnection c(endpoint());
  int status = 0;
  Call(c, "GET", std::string(kRbac) + "/clusterrolebindings/bob-watch-all", "", &status);
  EXPECT_EQ(status, 200);  // still there
  // A namespace's own object is in that namespace (kube's RequestInfo): alice may read default.
  EXPECT_EQ(As("alice-token", "GET", "/api/v1/namespaces/default").status, 200);
  EXPECT_EQ(As("alice-token", "GET", "/api/v1/namespaces/kube-system").status, 403);
}

TEST_F(AuthorizationTest, AnUpdateOrApplyThatCreatesNeedsTheRightToCreate) {
  GrantLeaseRole("lock-updater",
                 {{"apiGroups", {"coordination.k8s.io"}},
                  {"resources", {"leases"}},
                  {"resourceNames", {"my-lock"}},
                  {"verbs", {"get", "update", "patch"}}},
                 "alice");
  client::HttpReply put =
      As("alice-token", "PUT", std::string(kLeases) + "/my-lock", Lease("my-lock"));
  EXPECT_EQ(put.status, 403);
  EXPECT_EQ(
      json::parse(put.body)["message"],
      "leases.coordination.k8s.io \"my-lock\" is forbidden: User \"alice\" cannot create "
      "resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"default\"");
  client::HttpConnection c(endpoint());
  auto apply = c.Request(
      "PATCH", std::string(kLeases) + "/my-lock?fieldManager=alice",
      {{"Authorization", "Bearer alice-token"}, {"Content-Type", "application/apply-patch+yaml"}},
      Lease("my-lock"), std::chrono::seconds(10));
  ASSERT_TRUE(apply.ok());
  EXPECT_EQ(apply->status, 403);
  // With create (which names the object on a PUT) it may; then updates need no create.
  GrantLeaseRole("lock-creator",
                 {{"apiGroups", {"coordination.k8s.io"}},
                  {"resources", {"leases"}},
                  {"resourceNames", {"my-lock"}},
                  {"verbs", {"create"}}},
                 "alice");
  EXPECT_EQ(As("alice-token", "PUT", std::string(kLeases) + "/my-lock", Lease("my-lock")).status,
            201);
  client::HttpConnection again(endpoint());
  int status = 0;
  Call(again, "DELETE", std::string(kRbac) + "/namespaces/default/rolebindings/lock-creator-alice",
       "", &status);
  ASSERT_EQ(status, 200);
  json lease = json::parse(As("alice-token", "GET", std::string(kLeases) + "/my-lock").body);
  lease["spec"]["holderIdentity"] = "b";
  EXPECT_EQ(As("alice-token", "PUT", std::string(kLeases) + "/my-lock", lease.dump()).status, 200);
}

}  // namespace
}  // namespace tenure::server
