// YAML to JSON: one YAML document (a policy file, a YAML request body) as the JSON value it
// stands for, with the YAML 1.2 core schema's plain scalars (true/false, integers, floats,
// null/~/empty) typed and quoted scalars left strings, as Kubernetes' sigs.k8s.io/yaml reads it.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "tenure/status.h"

namespace tenure::server {

// BadRequest naming the line and column of a syntax error.
Result<nlohmann::json> YamlToJson(std::string_view text);

}  // namespace tenure::server
