// AuditPolicy: parsing a Policy and kube's rule matching.
#include "server/audit_policy.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/canonical_json.h"
#include "server/credentials.h"
#include "server/yaml_json.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr std::string_view kLevels[] = {"None", "Metadata", "Request", "RequestResponse"};
constexpr std::string_view kStages[] = {"RequestReceived", "ResponseStarted", "ResponseComplete",
                                        "Panic"};

bool Has(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

Result<std::vector<std::string>> Strings(const json& object, const char* key,
                                         const std::string& path) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return out;
  if (!it->is_array()) return Status::BadRequest(path + "." + key + ": must be a list of strings");
  for (const json& v : *it) {
    if (!v.is_string()) return Status::BadRequest(path + "." + key + ": must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<std::vector<AuditStage>> Stages(const json& object, const std::string& path) {
  auto names = Strings(object, "omitStages", path);
  if (!names.ok()) return names.status();
  std::vector<AuditStage> out;
  for (const std::string& name : *names) {
    auto it = std::find(std::begin(kStages), std::end(kStages), name);
    if (it == std::end(kStages)) {
      return Status::BadRequest(path + ".omitStages: Unsupported value: \"" + name +
                                "\": supported values: \"RequestReceived\", \"ResponseStarted\", "
                                "\"ResponseComplete\", \"Panic\"");
    }
    out.push_back(static_cast<AuditStage>(it - std::begin(kStages)));
  }
  return out;
}

Result<AuditPolicyRule> ParseRule(const json& rule, const std::string& path) {
  if (!rule.is_object()) return Status::BadRequest(path + ": must be an object");
  AuditPolicyRule out;
  const std::string level(api::internal::StringAt(rule, "level"));
  auto it = std::find(std::begin(kLevels), std::end(kLevels), level);
  if (it == std::end(kLevels)) {
    return Status::BadRequest(path + ".level: Unsupported value: \"" + level +
                              "\": supported values: \"None\", \"Metadata\", \"Request\", "
                              "\"RequestResponse\"");
  }
  out.level = static_cast<AuditLevel>(it - std::begin(kLevels));
  for (auto [key, target] : {std::pair{"users", &out.users},
                             {"userGroups", &out.user_groups},
                             {"verbs", &out.verbs},
                             {"namespaces", &out.namespaces},
                             {"nonResourceURLs", &out.non_resource_urls}}) {
    auto values = Strings(rule, key, path);
    if (!values.ok()) return values.status();
    *target = std::move(*values);
  }
  if (auto r = rule.find("resources"); r != rule.end() && !r->is_null()) {
    if (!r->is_array()) return Status::BadRequest(path + ".resources: must be a list");
    for (size_t i = 0; i < r->size(); ++i) {
      const std::string at = path + ".resources[" + std::to_string(i) + "]";
      const json& gr = (*r)[i];
      if (!gr.is_object()) return Status::BadRequest(at + ": must be an object");
      AuditPolicyRule::GroupResources entry;
      entry.group = std::string(api::internal::StringAt(gr, "group"));
      auto resources = Strings(gr, "resources", at);
      if (!resources.ok()) return resources.status();
      auto names = Strings(gr, "resourceNames", at);
      if (!names.ok()) return names.status();
      entry.resources = std::move(*resources);
      entry.resource_names = std::move(*names);
      out.resources.push_back(std::move(entry));
    }
  }
  if (!out.non_resource_urls.empty() && (!out.resources.empty() || !out.namespaces.empty())) {
    return Status::BadRequest(path +
                              ".nonResourceURLs: Invalid value: rules cannot apply to "
                              "both regular resources and non-resource URLs");
  }
  for (const std::string& url : out.non_resource_urls) {
    if (url != "*" && (url.empty() || url[0] != '/')) {
      return Status::BadRequest(path + ".nonResourceURLs: Invalid value: \"" + url +
                                "\": non-resource URL rules must begin with a '/' character");
    }
  }
  auto stages = Stages(rule, path);
  if (!stages.ok()) return stages.status();
  out.omit_stages = std::move(*stages);
  return out;
}

bool UrlMatches(const std::string& path, const std::string& spec) {
  if (spec == "*" || spec == path) return true;
  return !spec.empty() && spec.back() == '*' &&
         path.compare(0, spec.size() - 1, spec, 0, spec.size() - 1) == 0;
}

bool ResourceMatches(const AuditPolicyRule& rule, const AuthorizationAttributes& a) {
  if (!a.resource_request) return false;
  if (!rule.namespaces.empty() && !Has(rule.namespaces, a.namespace_)) return false;
  if (rule.resources.empty()) return true;
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const auto& gr : rule.resources) {
    if (gr.group != a.api_group) continue;
    if (gr.resources.empty()) return true;
    for (const std::string& res : gr.resources) {
      if (!gr.resource_names.empty() && !Has(gr.resource_names, a.name)) continue;
      if (res == combined || res == "*") return true;
      if (!a.subresource.empty() && res.rfind("*/", 0) == 0 && res.substr(2) == a.subresource) {
        return true;
      }
      if (res.size() > 2 && res.compare(res.size() - 2, 2, "/*") == 0 &&
          res.substr(0, res.size() - 2) == a.resource) {
        return true;
      }
    }
  }
  return false;
}

bool RuleMatches(const AuditPolicyRule& rule, const AuthorizationAttributes& a) {
  if (!rule.users.empty() && !Has(rule.users, a.user.name)) return false;
  if (!rule.user_groups.empty() &&
      std::none_of(a.user.groups.begin(), a.user.groups.end(),
                   [&](const std::string& g) { return Has(rule.user_groups, g); })) {
    return false;
  }
  if (!rule.verbs.empty() && !Has(rule.verbs, a.verb)) return false;
  if (!rule.namespaces.empty() || !rule.resources.empty()) return ResourceMatches(rule, a);
  if (!rule.non_resource_urls.empty()) {
    if (a.resource_request) return false;
    return std::any_of(rule.non_resource_urls.begin(), rule.non_resource_urls.end(),
                       [&](const std::string& spec) { return UrlMatches(a.path, spec); });
  }
  return true;
}

}  // namespace

std::string_view AuditLevelName(AuditLevel level) { return kLevels[static_cast<int>(level)]; }
std::string_view AuditStageName(AuditStage stage) { return kStages[static_cast<int>(stage)]; }

Result<AuditPolicy> ParseAuditPolicy(const json& policy) {
  if (!policy.is_object()) return Status::BadRequest("an audit policy must be an object");
  if (api::internal::StringAt(policy, "kind") != "Policy" ||
      api::internal::StringAt(policy, "apiVersion") != "audit.k8s.io/v1") {
    return Status::BadRequest("an audit policy is kind Policy of apiVersion audit.k8s.io/v1");
  }
  AuditPolicy out;
  auto stages = Stages(policy, "");
  if (!stages.ok()) return stages.status();
  out.omit_stages = std::move(*stages);
  if (auto m = policy.find("omitManagedFields"); m != policy.end() && m->is_boolean()) {
    out.omit_managed_fields = m->get<bool>();
  }
  auto rules = policy.find("rules");
  if (rules == policy.end() || !rules->is_array() || rules->empty()) {
    return Status::BadRequest("loaded illegal policy with 0 rules");
  }
  for (size_t i = 0; i < rules->size(); ++i) {
    auto rule = ParseRule((*rules)[i], "rules[" + std::to_string(i) + "]");
    if (!rule.ok()) return rule.status();
    out.rules.push_back(std::move(*rule));
  }
  return out;
}

Result<AuditPolicy> ReadAuditPolicyFile(const std::string& path) {
  auto text = ReadFileText(path);
  if (!text.ok()) return text.status();
  auto document = YamlToJson(*text);
  if (!document.ok()) return document.status();
  return ParseAuditPolicy(*document);
}

AuditDecision DecideAudit(const AuditPolicy& policy, const AuthorizationAttributes& attributes) {
  for (const AuditPolicyRule& rule : policy.rules) {
    if (!RuleMatches(rule, attributes)) continue;
    AuditDecision d{.level = rule.level,
                    .omit_stages = policy.omit_stages,
                    .omit_managed_fields = policy.omit_managed_fields};
    d.omit_stages.insert(d.omit_stages.end(), rule.omit_stages.begin(), rule.omit_stages.end());
    return d;
  }
  return {.level = AuditLevel::kNone,
          .omit_stages = policy.omit_stages,
          .omit_managed_fields = policy.omit_managed_fields};
}

AuditPolicy MetadataForEverything() {
  AuditPolicy policy;
  policy.rules.push_back({.level = AuditLevel::kMetadata});
  return policy;
}

}  // namespace tenure::server
