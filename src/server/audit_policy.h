// AuditPolicy: which requests the audit log records and how much of each, as kube-apiserver's
// audit.k8s.io/v1 Policy file says it: the first rule that matches a request gives its level
// (None, Metadata, Request, RequestResponse) and the stages left out; no match: None. A rule
// matches by users, user groups, verbs, resources (group, resources as "r", "r/sub", "*/sub",
// "r/*" or "*", resourceNames), namespaces ("" for cluster-scoped), or non-resource URLs ("/x",
// a prefix ending in "*", or "*"); an empty field matches everything.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "server/authorization_attributes.h"
#include "tenure/status.h"

namespace tenure::server {

enum class AuditLevel { kNone, kMetadata, kRequest, kRequestResponse };
enum class AuditStage { kRequestReceived, kResponseStarted, kResponseComplete, kPanic };

std::string_view AuditLevelName(AuditLevel level);
std::string_view AuditStageName(AuditStage stage);

struct AuditPolicyRule {
  struct GroupResources {
    std::string group;
    std::vector<std::string> resources;
    std::vector<std::string> resource_names;
  };
  AuditLevel level = AuditLevel::kNone;
  std::vector<std::string> users;
  std::vector<std::string> user_groups;
  std::vector<std::string> verbs;
  std::vector<GroupResources> resources;
  std::vector<std::string> namespaces;
  std::vector<std::string> non_resource_urls;
  std::vector<AuditStage> omit_stages;
};

struct AuditPolicy {
  std::vector<AuditStage> omit_stages;
  bool omit_managed_fields = false;
  std::vector<AuditPolicyRule> rules;
};

// What the policy says of one request.
struct AuditDecision {
  AuditLevel level = AuditLevel::kNone;
  std::vector<AuditStage> omit_stages;  // the policy's and the rule's
  bool omit_managed_fields = false;
};

// A Policy object (audit.k8s.io/v1, JSON or YAML turned JSON); BadRequest naming the field for
// an unknown level or stage, a URL not starting with "/", a rule mixing resources and URLs, or a
// policy without rules.
Result<AuditPolicy> ParseAuditPolicy(const nlohmann::json& policy);
// Reads a policy file (YAML or JSON).
Result<AuditPolicy> ReadAuditPolicyFile(const std::string& path);

// What the policy records for a request (kube's checker: the first matching rule).
AuditDecision DecideAudit(const AuditPolicy& policy, const AuthorizationAttributes& attributes);

// The policy without a file: every request at Metadata (who did what to which object, when).
AuditPolicy MetadataForEverything();

}  // namespace tenure::server
