// AuthorizeRbac, RuleAllows, SubjectAppliesToUser: kube-apiserver's RBAC evaluation.
#include "server/rbac_authorizer.h"

#include <algorithm>
#include <optional>

namespace tenure::server {
namespace {

bool Has(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool MatchesOrStar(const std::vector<std::string>& values, std::string_view value) {
  return Has(values, "*") || Has(values, value);
}

bool ResourceMatches(const api::PolicyRule& rule, const std::string& combined,
                     const std::string& subresource) {
  for (const std::string& resource : rule.resources) {
    if (resource == "*" || resource == combined) return true;
    if (!subresource.empty() && resource.size() == subresource.size() + 2 &&
        resource.compare(0, 2, "*/") == 0 &&
        resource.compare(2, std::string::npos, subresource) == 0) {
      return true;
    }
  }
  return false;
}

bool ResourceNameMatches(const api::PolicyRule& rule, const std::string& name) {
  return rule.resource_names.empty() || Has(rule.resource_names, name);
}

bool NonResourceUrlMatches(const api::PolicyRule& rule, const std::string& path) {
  for (const std::string& url : rule.non_resource_urls) {
    if (url == "*" || url == path) return true;
    if (!url.empty() && url.back() == '*') {
      std::string_view prefix(url);
      while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
      if (path.compare(0, prefix.size(), prefix) == 0) return true;
    }
  }
  return false;
}

// kube's describeSubject: `Group "g"`, `ServiceAccount "name/namespace"`.
std::string DescribeSubject(const api::Subject& subject, const std::string& binding_namespace) {
  std::string name = subject.name;
  if (subject.kind == "ServiceAccount") {
    name += "/" + (subject.namespace_.empty() ? binding_namespace : subject.namespace_);
  }
  return subject.kind + " \"" + name + "\"";
}

const api::Role* FindRole(const std::vector<api::Role>& roles, const std::string& namespace_,
                          const std::string& name) {
  for (const api::Role& role : roles) {
    if (role.metadata.name == name && role.metadata.namespace_ == namespace_) return &role;
  }
  return nullptr;
}

// The role a binding refers to, or the error kube reports for it.
const api::Role* RoleOf(const RbacPolicy& policy, const api::RoleBinding& binding,
                        std::vector<std::string>& errors) {
  const api::RoleRef& ref = binding.role_ref;
  if (ref.kind == "ClusterRole") {
    if (const api::Role* role = FindRole(policy.cluster_roles, "", ref.name)) return role;
    errors.push_back("clusterrole.rbac.authorization.k8s.io \"" + ref.name + "\" not found");
  } else if (ref.kind == "Role" && !binding.metadata.namespace_.empty()) {
    if (const api::Role* role = FindRole(policy.roles, binding.metadata.namespace_, ref.name)) {
      return role;
    }
    errors.push_back("role.rbac.authorization.k8s.io \"" + ref.name + "\" not found");
  } else {
    errors.push_back("unsupported role reference kind: \"" + ref.kind + "\"");
  }
  return nullptr;
}

// The reason of a binding that allowed, or nullopt; errors collects missing roles.
std::optional<std::string> Allows(const RbacPolicy& policy, const api::RoleBinding& binding,
                                  const AuthorizationAttributes& attributes,
                                  std::vector<std::string>& errors) {
  const std::string& ns = binding.metadata.namespace_;
  const api::Subject* subject = nullptr;
  for (const api::Subject& s : binding.subjects) {
    if (SubjectAppliesToUser(s, attributes.user, ns)) {
      subject = &s;
      break;
    }
  }
  if (subject == nullptr) return std::nullopt;
  const api::Role* role = RoleOf(policy, binding, errors);
  if (role == nullptr) return std::nullopt;
  for (const api::PolicyRule& rule : role->rules) {
    if (!RuleAllows(attributes, rule)) continue;
    const bool cluster = ns.empty();
    return "RBAC: allowed by " + std::string(cluster ? "ClusterRoleBinding" : "RoleBinding") +
           " \"" + binding.metadata.name + (cluster ? "" : "/" + ns) + "\" of " +
           binding.role_ref.kind + " \"" + binding.role_ref.name + "\" to " +
           DescribeSubject(*subject, ns);
  }
  return std::nullopt;
}

}  // namespace

bool RuleAllows(const AuthorizationAttributes& a, const api::PolicyRule& rule) {
  if (!MatchesOrStar(rule.verbs, a.verb)) return false;
  if (!a.resource_request) return NonResourceUrlMatches(rule, a.path);
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  return MatchesOrStar(rule.api_groups, a.api_group) &&
         ResourceMatches(rule, combined, a.subresource) && ResourceNameMatches(rule, a.name);
}

bool SubjectAppliesToUser(const api::Subject& subject, const UserInfo& user,
                          const std::string& binding_namespace) {
  if (subject.kind == "User") return user.name == subject.name;
  if (subject.kind == "Group") return Has(user.groups, subject.name);
  if (subject.kind == "ServiceAccount") {
    const std::string& ns = subject.namespace_.empty() ? binding_namespace : subject.namespace_;
    if (ns.empty()) return false;
    return user.name == "system:serviceaccount:" + ns + ":" + subject.name;
  }
  return false;
}

AuthorizationDecision AuthorizeRbac(const RbacPolicy& policy,
                                    const AuthorizationAttributes& attributes) {
  std::vector<std::string> errors;
  for (const api::RoleBinding& binding : policy.cluster_role_bindings) {
    if (auto reason = Allows(policy, binding, attributes, errors)) return {true, *reason};
  }
  if (!attributes.namespace_.empty()) {
    for (const api::RoleBinding& binding : policy.role_bindings) {
      if (binding.metadata.namespace_ != attributes.namespace_) continue;
      if (auto reason = Allows(policy, binding, attributes, errors)) return {true, *reason};
    }
  }
  AuthorizationDecision denied;
  if (!errors.empty()) {
    denied.reason = "RBAC: ";
    if (errors.size() > 1) denied.reason += "[";
    for (size_t i = 0; i < errors.size(); ++i) denied.reason += (i ? ", " : "") + errors[i];
    if (errors.size() > 1) denied.reason += "]";
  }
  return denied;
}

}  // namespace tenure::server
