// Impersonation as kube-apiserver's filter does it: a request with Impersonate-User (and
// optionally Impersonate-Group, Impersonate-Uid, Impersonate-Extra-<key>) acts as that user once
// the requester may `impersonate` each value (core users, or serviceaccounts for
// "system:serviceaccount:<ns>:<name>", core groups, authentication.k8s.io uids and
// userextras/<key>); a denial is kube's 403 for the first value refused. Groups, uid or extras
// without a user are 400. The impersonated user gets system:authenticated (system:anonymous:
// system:unauthenticated) unless the groups hold either; a service account without
// Impersonate-Group gets its groups system:serviceaccounts and system:serviceaccounts:<ns>.
//
// Repeated headers arrive joined with commas (http_server.h), so each Impersonate-Group value is
// split at commas: a group name cannot contain one here.
#pragma once

#include "server/authorizer.h"
#include "server/http_server.h"
#include "server/user_info.h"
#include "tenure/status.h"

namespace tenure::server {

// The user the request acts as: `requester` when it impersonates no one.
Result<UserInfo> Impersonate(const HttpRequest& request, const UserInfo& requester,
                             const Authorizer& authorizer);

}  // namespace tenure::server
