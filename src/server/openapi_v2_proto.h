// The protobuf form of /openapi/v2: the Swagger 2.0 document (openapi_v2.h) encoded as gnostic's
// openapi.v2.Document (github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto), the form
// kubectl and client-go's discovery ask for
// (application/com.github.proto-openapi.spec.v2@v1.0+protobuf) and read with kube-openapi:
// definitions with their properties, types, references, required fields and vendor extensions
// (x-kubernetes-group-version-kind, list types), and the paths with their operations, parameters
// and responses. Values of `default`, `enum` and the extensions are carried as gnostic's Any, as
// YAML text (JSON is YAML).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace tenure::server {

std::string OpenApiV2Protobuf(const nlohmann::json& swagger_document);

}  // namespace tenure::server
