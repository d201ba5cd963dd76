// The default RBAC policy kube-apiserver creates at startup, as far as it matters to what tenure
// serves: the cluster roles cluster-admin, admin, edit, view, system:discovery,
// system:basic-user and system:public-info-viewer, and the bindings of cluster-admin to
// system:masters, of system:discovery and system:basic-user to system:authenticated, and of
// system:public-info-viewer to everyone (authenticated or not); and the coordination
// controller's role and binding, the dashboard reader's, the identity Lease writer's, and the
// dashboard viewer role. admin, edit and view carry the rules kube aggregates into them (edit:
// every verb on leases; view: no leases, no secrets).
//
// At every start each object is created when missing and otherwise reconciled as kube does:
// missing rules (roles) and subjects (bindings) are added, what an administrator added stays,
// and an object annotated rbac.authorization.kubernetes.io/autoupdate: "false" is left alone.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "api/kinds.h"
#include "server/resource_api.h"

namespace tenure::server {

struct BootstrapObject {
  const api::KindInfo* kind;
  nlohmann::json object;  // as a client would create it
};

// The user the coordinated election controller of `tenure serve` acts as, and the name of its
// ClusterRole and ClusterRoleBinding: leases (its own election and the leases it coordinates),
// LeaseCandidates (pings, collecting expired ones) and Events, nothing else.
inline constexpr std::string_view kCoordinationControllerUser =
    "system:tenure:coordination-controller";

// The user the dashboard of `tenure serve` reads the API as (its own ClusterRole and binding of
// that name): Leases, LeaseCandidates and Events to read and watch, and GET /metrics and
// /version.
inline constexpr std::string_view kDashboardReaderUser = "system:tenure:dashboard";
// The user `tenure serve` keeps its API server identity Lease as (kube-system/apiserver-<id>,
// coordination/server_identity.h), and its ClusterRole, bound in kube-system only (a
// RoleBinding): Leases to get, list, create, update and delete (expired identity Leases are
// collected).
inline constexpr std::string_view kServerIdentityUser = "system:tenure:apiserver-identity";
// The ClusterRole that lets a user open the dashboard (nonResourceURLs /dashboard and below,
// get); bound to no one by default (system:masters may open it anyway).
inline constexpr std::string_view kDashboardViewerRole = "tenure:dashboard-viewer";

std::vector<BootstrapObject> BootstrapPolicy();

Status EnsureBootstrapPolicy(ResourceApi& resources);

}  // namespace tenure::server
