// The "paths" of one group-version's OpenAPI v3 document (openapi.h): GET of its resource list,
// and per kind the collection, item and all-namespaces operations kube-apiserver documents (the
// verbs the kind's description lists).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "api/description.h"

namespace tenure::server {

nlohmann::json OpenApiPaths(const std::vector<const api::KindDescription*>& kinds,
                            std::string_view group, std::string_view version);

}  // namespace tenure::server
