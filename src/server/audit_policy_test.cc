// Tests of the audit policy: parsing with kube's checks, and the first matching rule's level.
#include "server/audit_policy.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/yaml_json.h"

namespace tenure::server {
namespace {

AuditPolicy Parse(const std::string& yaml) {
  auto document = YamlToJson(yaml);
  EXPECT_TRUE(document.ok()) << document.status().ToString();
  auto policy = ParseAuditPolicy(*document);
  EXPECT_TRUE(policy.ok()) << policy.status().ToString();
  return policy.ok() ? *policy : AuditPolicy{};
}

AuthorizationAttributes Lease(const std::string& verb, const std::string& user,
                              const std::string& name = "l", const std::string& ns = "default") {
  return {.user = {.name = user, .groups = {"system:authenticated"}},
          .verb = verb,
          .namespace_ = ns,
          .api_group = "coordination.k8s.io",
          .api_version = "v1",
          .resource = "leases",
          .name = name};
}

const char* kPolicy = R"(
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: ["system:tenure:coordination-controller"]
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  verbs: [update, patch, delete]
  resources:
  - group: coordination.k8s.io
    resources: [leases]
    resourceNames: [important]
  omitStages: [ResponseStarted]
- level: Request
  namespaces: [prod]
- level: Metadata
  resources:
  - group: ""
    resources: ["*/status", "configmaps/*"]
- level: Metadata
  userGroups: [auditors]
)";

TEST(AuditPolicyTest, TheFirstMatchingRuleDecides) {
  AuditPolicy policy = Parse(kPolicy);
  ASSERT_EQ(policy.rules.size(), 6u);
  EXPECT_EQ(
      DecideAudit(policy, Lease("update", "system:tenure:coordination-controller", "important"))
          .level,
      AuditLevel::kNone);
  AuditDecision important = DecideAudit(policy, Lease("update", "alice", "important"));
  EXPECT_EQ(important.level, AuditLevel::kRequestResponse);
  EXPECT_EQ(important.omit_stages,
            (std::vector<AuditStage>{AuditStage::kRequestReceived, AuditStage::kResponseStarted}));
  EXPECT_EQ(DecideAudit(policy, Lease("get", "alice", "important")).level, AuditLevel::kNone);
  EXPECT_EQ(DecideAudit(policy, Lease("get", "alice", "x", "prod")).level, AuditLevel::kRequest);
  AuthorizationAttributes status = Lease("update", "alice");
  status.api_group = "";
  status.resource = "namespaces";
  status.subresource = "status";
  EXPECT_EQ(DecideAudit(policy, status).level, AuditLevel::kMetadata);
  AuthorizationAttributes path{.user = {.name = "alice", .groups = {"auditors"}},
                               .verb = "get",
                               .resource_request = false,
                               .path = "/healthz/ready"};
  EXPECT_EQ(DecideAudit(policy, path).level, AuditLevel::kNone);
  path.path = "/metrics";
  EXPECT_EQ(DecideAudit(policy, path).level, AuditLevel::kMetadata);  // by group
  path.user.groups = {};
  EXPECT_EQ(DecideAudit(policy, path).level, AuditLevel::kNone);  // no rule: None
}

TEST(AuditPolicyTest, BadPoliciesAreRefusedNamingTheField) {
  auto refuse = [](const std::string& yaml) {
    auto document = YamlToJson(yaml);
    EXPECT_TRUE(document.ok());
    auto policy = ParseAuditPolicy(*document);
    EXPECT_FALSE(policy.ok()) << yaml;
    return policy.status().message();
  };
  EXPECT_EQ(refuse("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []"),
            "loaded illegal policy with 0 rules");
  EXPECT_EQ(refuse("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]"),
            "rules[0].level: Unsupported value: \"Everything\": supported values: \"None\", "
            "\"Metadata\", \"Request\", \"RequestResponse\"");
  EXPECT_EQ(refuse("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
                   "  nonResourceURLs: [healthz]"),
            "rules[0].nonResourceURLs: Invalid value: \"healthz\": non-resource URL rules must "
            "begin with a '/' character");
  EXPECT_NE(refuse("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
                   "  nonResourceURLs: [/x]\n  namespaces: [a]")
                .find("rules cannot apply to both regular resources and non-resource URLs"),
            std::string::npos);
  EXPECT_NE(refuse("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Later]\nrules: "
                   "[{level: None}]")
                .find("omitStages: Unsupported value: \"Later\""),
            std::string::npos);
  EXPECT_EQ(refuse("apiVersion: v1\nkind: ConfigMap\nrules: [{level: None}]"),
            "an audit policy is kind Policy of apiVersion audit.k8s.io/v1");
}

TEST(YamlJsonTest, PlainScalarsAreTypedAndQuotedOnesStayStrings) {
  auto document = YamlToJson("a: 1\nb: '1'\nc: true\nd: ~\ne: [x, 2.5]\nf: \"true\"\n");
  ASSERT_TRUE(document.ok());
  EXPECT_EQ(*document,
            nlohmann::json::parse(R"({"a":1,"b":"1","c":true,"d":null,"e":["x",2.5],"f":"true"})"));
  auto bad = YamlToJson("a: [1, 2");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("invalid YAML at line"), std::string::npos);
}

}  // namespace
}  // namespace tenure::server
