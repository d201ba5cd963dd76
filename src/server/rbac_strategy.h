// The RBAC bindings' strategy (RoleBinding, ClusterRoleBinding): kube-apiserver's defaults for
// rbac.authorization.k8s.io/v1, applied on every write: roleRef.apiGroup
// "rbac.authorization.k8s.io" when empty, and each subject's apiGroup by its kind ("" for
// ServiceAccount, "rbac.authorization.k8s.io" for User and Group) when empty.
#pragma once

#include <memory>

#include "server/kind_strategy.h"

namespace tenure::server {

std::unique_ptr<KindStrategy> MakeRbacBindingStrategy(const api::KindInfo& kind);

}  // namespace tenure::server
