// Paths of the Kubernetes REST API for a kind of the registry (kinds.h), as every client of it
// in tenure builds them: the group version ("/apis/coordination.k8s.io/v1", "/api/v1" for the
// core group), a collection (".../namespaces/NS/leases"; ".../leases" across all namespaces or
// for a cluster-scoped kind), one object (".../leases/NAME"), the OpenAPI path templates of the
// last two, and query strings. Every segment and every query key and value is percent-encoded
// (url.h), so a name or namespace can neither reach another path nor add a parameter. The
// server's router parses these paths, and its OpenAPI documents list them (server/).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "api/kinds.h"

namespace tenure::api {

// "/apis/GROUP/VERSION", or "/api/VERSION" for the core group "" (discovery of one group version).
std::string GroupVersionPath(std::string_view group, std::string_view version);
std::string GroupVersionPath(const KindInfo& kind, std::string_view version);
// The kind's collection in `namespace_`; across every namespace when `namespace_` is "", and
// always for a cluster-scoped kind (which ignores `namespace_`).
std::string CollectionPath(const KindInfo& kind, std::string_view version,
                           std::string_view namespace_);
// CollectionPath(kind, version, namespace_) + "/NAME".
std::string ObjectPath(const KindInfo& kind, std::string_view version, std::string_view namespace_,
                       std::string_view name);

// The same paths as OpenAPI's path templates, with "{namespace}" and "{name}" in place of the
// values: ".../namespaces/{namespace}/leases" (".../namespaces" for a cluster-scoped kind) and
// that + "/{name}".
std::string CollectionPathTemplate(const KindInfo& kind, std::string_view version);
std::string ObjectPathTemplate(const KindInfo& kind, std::string_view version);

using QueryParams = std::initializer_list<std::pair<std::string_view, std::string_view>>;
// `path` with "?k=v&k2=v2" appended ("&k=v..." when it has a query already); keys and values
// percent-encoded, in the given order.
std::string WithQuery(std::string path, QueryParams params);

}  // namespace tenure::api
