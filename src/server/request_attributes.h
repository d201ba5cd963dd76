// RequestAttributes: what the authorizer is asked about an HTTP request, as kube-apiserver's
// RequestInfo and authorizer attributes carry it: the verb ("list", "watch", "deletecollection"
// decided by ParseRequestInfo), group, version, resource, subresource, namespace and name; for a
// list or watch, the name a `metadata.name=<name>` field selector pins (so rules with
// resourceNames can allow it); for any other path, the lowercase method and the path.
#pragma once

#include "server/authorization_attributes.h"
#include "server/http_server.h"
#include "server/request_info.h"

namespace tenure::server {

AuthorizationAttributes RequestAttributes(const HttpRequest& request, const RequestInfo& info,
                                          UserInfo user);

}  // namespace tenure::server
