// components.schemas of the OpenAPI v3 documents, rendered from the api layer's descriptions
// (api/description.h) in kube-apiserver's style: "$ref"s through "allOf", "default" values,
// list and map extensions, the Go package in every schema name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/description.h"

namespace tenure::server {

// "io.k8s.api.coordination.v1.LeaseSpec", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": the
// name of `object`'s schema in the document of group/version.
std::string OpenApiSchemaName(const api::ObjectDescription& object, std::string_view group,
                              std::string_view version);

// {"$ref": "#/components/schemas/<name>"}.
nlohmann::json OpenApiRef(const std::string& name);
// {"group": ..., "version": ..., "kind": ...}, as x-kubernetes-group-version-kind lists them.
nlohmann::json OpenApiGvk(std::string_view group, std::string_view version, std::string_view kind);

// The schemas of `roots` and of every object they hold, by name.
nlohmann::json OpenApiSchemas(const std::vector<const api::ObjectDescription*>& roots,
                              std::string_view group, std::string_view version);

}  // namespace tenure::server
