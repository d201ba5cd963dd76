// The OpenAPI v2 (Swagger 2.0) document of GET /openapi/v2, derived from the v3 documents of
// every served group-version, as kube-apiserver serves both from the same definitions: one
// document with every path, `definitions` for components.schemas (a definition shared by several
// group-versions, such as DeleteOptions, lists every group-version-kind it stands for), body
// parameters for request bodies, a schema and `produces` per response, and `consumes`.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace tenure::server {

// `v3_documents`: OpenApiV3Document of each served group-version.
nlohmann::json OpenApiV2FromV3(const std::vector<nlohmann::json>& v3_documents);

}  // namespace tenure::server
