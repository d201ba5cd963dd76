// RBAC escalation prevention as kube-apiserver does it (pkg/registry/rbac/validation and the
// policy-based storage of roles and bindings): no one grants rights they do not hold.
//  - A Role or ClusterRole may be written by a member of system:masters, by a user allowed to
//    `escalate` it (roles or clusterroles, its name, its namespace), or by one whose own rules in
//    its namespace (cluster-wide for a ClusterRole) cover every rule it holds.
//  - A RoleBinding or ClusterRoleBinding may be written by a member of system:masters, by a
//    user allowed to `bind` the referenced role (roles or clusterroles, named roleRef.name, in the
//    binding's namespace), or by one whose rules cover every rule of that role (a role that does
//    not exist is then 404).
// Otherwise 403: `roles.rbac.authorization.k8s.io "r" is forbidden: user "u" (groups=["g"]) is
// attempting to grant RBAC permissions not currently held:` and each missing right on a line,
// compacted as kube does (`{APIGroups:["coordination.k8s.io"], Resources:["leases"],
// Verbs:["get" "update"]}`).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "api/kinds.h"
#include "api/types.h"
#include "server/authorizer.h"
#include "server/rbac_authorizer.h"
#include "server/user_info.h"
#include "tenure/status.h"

namespace tenure::server {

// Every rule the user holds in `namespace_` ("" : cluster-wide only): the rules of the roles of
// every ClusterRoleBinding naming the user, then of the namespace's RoleBindings. `errors`
// collects bindings whose role does not exist (kube: rule resolution errors).
std::vector<api::PolicyRule> RulesFor(const RbacPolicy& policy, const UserInfo& user,
                                      const std::string& namespace_,
                                      std::vector<std::string>* errors = nullptr);

// The rights of `servant` (broken down to one verb on one resource or URL each) that no rule of
// `owner` covers; empty when `owner` covers them all (kube's Covers).
std::vector<api::PolicyRule> Uncovered(const std::vector<api::PolicyRule>& owner,
                                       const std::vector<api::PolicyRule>& servant);

// kube's CompactString of a rule: `{APIGroups:["g"], Resources:["r"], Verbs:["get"]}`.
std::string CompactString(const api::PolicyRule& rule);

// Whether `user` may write `object` (canonical) of `kind`, one of the four RBAC kinds; OK for
// every other kind.
Status CheckNoEscalation(const Authorizer& authorizer, const api::KindInfo& kind,
                         const UserInfo& user, const nlohmann::json& object);

}  // namespace tenure::server
