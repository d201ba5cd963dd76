// RBAC escalation prevention: the user's rules, coverage of one rule set by another, and the
// checks of role and binding writes.
#include "server/rbac_escalation.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "api/description.h"

namespace tenure::server {
namespace {

using nlohmann::json;

bool Has(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool HasAll(const std::vector<std::string>& set, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const auto& w) { return Has(set, w); });
}

bool ResourcesCoverAll(const std::vector<std::string>& set,
                       const std::vector<std::string>& wanted) {
  if (Has(set, "*") || HasAll(set, wanted)) return true;
  for (const std::string& path : wanted) {
    if (Has(set, path)) continue;
    size_t slash = path.find('/');
    if (slash == std::string::npos) return false;
    if (!Has(set, "*/" + path.substr(slash + 1))) return false;
  }
  return true;
}

bool UrlCovers(const std::string& owner, const std::string& sub) {
  if (owner == sub) return true;
  if (owner.empty() || owner.back() != '*') return false;
  std::string_view prefix(owner);
  while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
  return sub.compare(0, prefix.size(), prefix) == 0;
}

bool UrlsCoverAll(const std::vector<std::string>& set, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& path) {
    return std::any_of(set.begin(), set.end(), [&](const auto& o) { return UrlCovers(o, path); });
  });
}

// kube's ruleCovers.
bool RuleCovers(const api::PolicyRule& owner, const api::PolicyRule& sub) {
  const bool verbs = Has(owner.verbs, "*") || HasAll(owner.verbs, sub.verbs);
  const bool groups = Has(owner.api_groups, "*") || HasAll(owner.api_groups, sub.api_groups);
  const bool names =
      owner.resource_names.empty() ||
      (!sub.resource_names.empty() && HasAll(owner.resource_names, sub.resource_names));
  return verbs && groups && ResourcesCoverAll(owner.resources, sub.resources) && names &&
         UrlsCoverAll(owner.non_resource_urls, sub.non_resource_urls);
}

// kube's BreakdownRule: one verb on one group/resource (/name), or one verb on one URL.
std::vector<api::PolicyRule> Breakdown(const api::PolicyRule& rule) {
  std::vector<api::PolicyRule> out;
  for (const std::string& group : rule.api_groups) {
    for (const std::string& resource : rule.resources) {
      for (const std::string& verb : rule.verbs) {
        if (rule.resource_names.empty()) {
          out.push_back({.verbs = {verb}, .api_groups = {group}, .resources = {resource}});
        }
        for (const std::string& name : rule.resource_names) {
          out.push_back({.verbs = {verb},
                         .api_groups = {group},
                         .resources = {resource},
                         .resource_names = {name}});
        }
      }
    }
  }
  for (const std::string& url : rule.non_resource_urls) {
    for (const std::string& verb : rule.verbs) {
      out.push_back({.verbs = {verb}, .non_resource_urls = {url}});
    }
  }
  return out;
}

// kube's CompactRules: broken-down rules on the same group and resource without names become one
// rule with all their verbs.
std::vector<api::PolicyRule> Compact(const std::vector<api::PolicyRule>& rules) {
  std::vector<api::PolicyRule> out;
  std::map<std::pair<std::string, std::string>, size_t> simple;
  for (const api::PolicyRule& rule : rules) {
    const bool mergeable = rule.resource_names.empty() && rule.non_resource_urls.empty() &&
                           rule.api_groups.size() == 1 && rule.resources.size() == 1;
    if (!mergeable) {
      out.push_back(rule);
      continue;
    }
    auto key = std::make_pair(rule.api_groups[0], rule.resources[0]);
    auto it = simple.find(key);
    if (it == simple.end()) {
      simple.emplace(key, out.size());
      out.push_back(rule);
    } else {
      for (const std::string& verb : rule.verbs) {
        if (!Has(out[it->second].verbs, verb)) out[it->second].verbs.push_back(verb);
      }
    }
  }
  return out;
}

// Go's %q of a []string: ["a" "b"].
std::string GoQuotedList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ' ';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "]";
}

template <typename T>
T Decode(const api::KindInfo& kind, const json& object) {
  T out;
  api::DecodeTyped(*api::Describe(kind).object, object, &out);
  return out;
}

// The rules of the role a binding refers to; NotFound as kube's when it does not exist.
Result<std::vector<api::PolicyRule>> RoleReferenceRules(const RbacPolicy& policy,
                                                        const api::RoleRef& ref,
                                                        const std::string& namespace_) {
  const bool cluster = ref.kind == "ClusterRole";
  for (const api::Role& role : cluster ? policy.cluster_roles : policy.roles) {
    if (role.metadata.name == ref.name && (cluster || role.metadata.namespace_ == namespace_)) {
      return role.rules;
    }
  }
  Status missing =
      Status::NotFound((cluster ? "clusterroles" : "roles") +
                       std::string(".rbac.authorization.k8s.io \"") + ref.name + "\" not found");
  missing.set_details({.name = ref.name,
                       .group = "rbac.authorization.k8s.io",
                       .kind = cluster ? "clusterroles" : "roles"});
  return missing;
}

// ConfirmNoEscalation's answer, as the Forbidden of the object being written.
Status ConfirmNoEscalation(const RbacPolicy& policy, const api::KindInfo& kind,
                           const UserInfo& user, const std::string& name,
                           const std::string& namespace_,
                           const std::vector<api::PolicyRule>& rules) {
  std::vector<std::string> errors;
  std::vector<api::PolicyRule> missing =
      Uncovered(RulesFor(policy, user, namespace_, &errors), rules);
  if (missing.empty()) return Status::Ok();
  std::set<std::string> lines;
  for (const api::PolicyRule& rule : Compact(missing)) lines.insert(CompactString(rule));
  std::string message = kind.qualified_resource() + " \"" + name + "\" is forbidden: user \"" +
                        user.name + "\" (groups=" + GoQuotedList(user.groups) +
                        ") is attempting to grant RBAC permissions not currently held:";
  for (const std::string& line : lines) message += "\n" + line;
  if (!errors.empty()) {
    message += "; resolution errors: [";
    for (size_t i = 0; i < errors.size(); ++i) message += (i ? " " : "") + errors[i];
    message += "]";
  }
  Status forbidden(Reason::kForbidden, std::move(message));
  forbidden.set_details(
      {.name = name, .group = std::string(kind.group), .kind = std::string(kind.resource)});
  return forbidden;
}

}  // namespace

std::vector<api::PolicyRule> RulesFor(const RbacPolicy& policy, const UserInfo& user,
                                      const std::string& namespace_,
                                      std::vector<std::string>* errors) {
  std::vector<api::PolicyRule> rules;
  auto add = [&](const api::RoleBinding& binding, const std::string& binding_ns) {
    bool applies = std::any_of(
        binding.subjects.begin(), binding.subjects.end(),
        [&](const api::Subject& s) { return SubjectAppliesToUser(s, user, binding_ns); });
    if (!applies) return;
    auto role = RoleReferenceRules(policy, binding.role_ref, binding_ns);
    if (!role.ok()) {
      if (errors) errors->push_back(role.status().message());
      return;
    }
    rules.insert(rules.end(), role->begin(), role->end());
  };
  for (const api::RoleBinding& binding : policy.cluster_role_bindings) add(binding, "");
  if (!namespace_.empty()) {
    for (const api::RoleBinding& binding : policy.role_bindings) {
      if (binding.metadata.namespace_ == namespace_) add(binding, namespace_);
    }
  }
  return rules;
}

std::vector<api::PolicyRule> Uncovered(const std::vector<api::PolicyRule>& owner,
                                       const std::vector<api::PolicyRule>& servant) {
  std::vector<api::PolicyRule> missing;
  for (const api::PolicyRule& rule : servant) {
    for (const api::PolicyRule& sub : Breakdown(rule)) {
      bool covered = std::any_of(owner.begin(), owner.end(),
                                 [&](const api::PolicyRule& o) { return RuleCovers(o, sub); });
      if (!covered) missing.push_back(sub);
    }
  }
  return missing;
}

std::string CompactString(const api::PolicyRule& rule) {
  std::vector<std::string> parts;
  if (!rule.api_groups.empty()) parts.push_back("APIGroups:" + GoQuotedList(rule.api_groups));
  if (!rule.resources.empty()) parts.push_back("Resources:" + GoQuotedList(rule.resources));
  if (!rule.non_resource_urls.empty()) {
    parts.push_back("NonResourceURLs:" + GoQuotedList(rule.non_resource_urls));
  }
  if (!rule.resource_names.empty()) {
    parts.push_back("ResourceNames:" + GoQuotedList(rule.resource_names));
  }
  if (!rule.verbs.empty()) parts.push_back("Verbs:" + GoQuotedList(rule.verbs));
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

Status CheckNoEscalation(const Authorizer& authorizer, const api::KindInfo& kind,
                         const UserInfo& user, const json& object) {
  const bool role = &kind == &api::RoleKind() || &kind == &api::ClusterRoleKind();
  const bool binding = &kind == &api::RoleBindingKind() || &kind == &api::ClusterRoleBindingKind();
  if ((!role && !binding) || IsPrivileged(user)) return Status::Ok();
  std::shared_ptr<const RbacPolicy> policy = authorizer.CurrentPolicy();
  if (policy == nullptr) return Status::Ok();  // no authorization at all
  const auto& meta = object.at("metadata");
  const std::string name = meta.value("name", "");
  const std::string namespace_ = kind.namespaced ? meta.value("namespace", "") : "";
  AuthorizationAttributes may{
      .user = user, .namespace_ = namespace_, .api_group = "rbac.authorization.k8s.io"};
  if (role) {
    may.verb = "escalate";
    may.resource = std::string(kind.resource);
    may.name = name;
    if (authorizer.Authorize(may).allowed) return Status::Ok();
    return ConfirmNoEscalation(*policy, kind, user, name, namespace_,
                               Decode<api::Role>(kind, object).rules);
  }
  const api::RoleBinding b = Decode<api::RoleBinding>(kind, object);
  may.verb = "bind";
  may.resource = b.role_ref.kind == "ClusterRole" ? "clusterroles" : "roles";
  may.name = b.role_ref.name;
  if (authorizer.Authorize(may).allowed) return Status::Ok();
  auto rules = RoleReferenceRules(*policy, b.role_ref, namespace_);
  if (!rules.ok()) return rules.status();
  return ConfirmNoEscalation(*policy, kind, user, name, namespace_, *rules);
}

}  // namespace tenure::server
