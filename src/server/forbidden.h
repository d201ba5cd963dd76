// ForbiddenStatus: the 403 kube-apiserver answers when authorization denies a request, with its
// words: `leases.coordination.k8s.io "x" is forbidden: User "u" cannot update resource "leases"
// in API group "coordination.k8s.io" in the namespace "default"[: <authorizer's reason>]`, or for
// a path `forbidden: User "u" cannot get path "/foo"`; details name the resource (without its
// subresource), group and name.
#pragma once

#include <string_view>

#include "server/authorization_attributes.h"
#include "tenure/status.h"

namespace tenure::server {

Status ForbiddenStatus(const AuthorizationAttributes& attributes, std::string_view reason);

}  // namespace tenure::server
