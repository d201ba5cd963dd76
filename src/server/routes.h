// The REST routes of a kind, as kube-apiserver installs them (endpoints/installer.go): derived
// from the verbs the kind declares (api::KindInfo::verbs, what discovery and OpenAPI list), so a
// verb a kind does not declare is refused before any handler runs, exactly as kube-apiserver
// refuses it:
// - a path with no route at all (a subresource, a namespaced object without its namespace, a
//   cluster-scoped kind under a namespace, the /watch/ paths of a kind without watch): 404
//   NotFound 'the server could not find the requested resource';
// - a path with routes, none for the method (DELETE of the namespaces collection: Namespace has
//   no deletecollection; POST on an object; DELETE of a namespaced kind across all namespaces):
//   405 MethodNotAllowed 'the server does not allow this method on the requested resource';
// - a `?watch=true` GET of a kind that lists but does not watch: the list route answers 405
//   MethodNotAllowed 'watch is not supported on resources of kind "..."'.
#pragma once

#include <string_view>

#include "api/kinds.h"
#include "server/request_info.h"
#include "server/verb.h"
#include "tenure/status.h"

namespace tenure::server {

// Whether the kind declares `verb` (its KindInfo::verbs).
bool Serves(const api::KindInfo& kind, Verb verb);

// OK when a route of `kind` serves the resource request `info` made with HTTP `method`;
// otherwise the Status kube-apiserver answers it with.
Status CheckRoute(const api::KindInfo& kind, const RequestInfo& info, std::string_view method);

}  // namespace tenure::server
