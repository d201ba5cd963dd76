// RBAC as kube-apiserver evaluates it, as a pure function of the policy (every Role,
// ClusterRole, RoleBinding and ClusterRoleBinding) and a request's attributes: the
// ClusterRoleBindings first, then the RoleBindings of the request's namespace; the first rule
// that allows wins, there are no deny rules, and a binding whose role is missing adds to the
// reason instead of failing. The decision's reason is kube's: "RBAC: allowed by
// ClusterRoleBinding "b" of ClusterRole "r" to Group "g"".
#pragma once

#include <string>
#include <vector>

#include "api/types.h"
#include "server/authorization_attributes.h"

namespace tenure::server {

struct RbacPolicy {
  std::vector<api::Role> cluster_roles;
  std::vector<api::Role> roles;
  std::vector<api::RoleBinding> cluster_role_bindings;
  std::vector<api::RoleBinding> role_bindings;
};

struct AuthorizationDecision {
  bool allowed = false;
  std::string reason;  // why it was allowed, or what went wrong while deciding ("" otherwise)
};

AuthorizationDecision AuthorizeRbac(const RbacPolicy& policy,
                                    const AuthorizationAttributes& attributes);

// Whether one rule allows the request (kube's RuleAllows): the verb, the group, the resource
// ("*", "res", "res/sub" or "*/sub"), the name (a rule with names never matches a request
// without one) or, for paths, the URL ("*", the path, or a prefix ending in "*").
bool RuleAllows(const AuthorizationAttributes& attributes, const api::PolicyRule& rule);

// Whether a binding's subject is the user (kube's appliesToUser): User by name, Group by
// membership, ServiceAccount by "system:serviceaccount:<namespace>:<name>", its namespace the
// subject's or else the binding's.
bool SubjectAppliesToUser(const api::Subject& subject, const UserInfo& user,
                          const std::string& binding_namespace);

}  // namespace tenure::server
