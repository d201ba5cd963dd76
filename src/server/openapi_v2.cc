// OpenApiV2FromV3: Swagger 2.0 from the OpenAPI 3.0 documents (schemas, parameters, bodies).
#include "server/openapi_v2.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr std::string_view kV3Refs = "#/components/schemas/";
constexpr std::string_view kV2Refs = "#/definitions/";

// A v3 schema as v2 writes it: references into definitions; `allOf` of one reference (how v3
// gives a referenced field a description and default) as the reference itself.
json Schema(const json& v3) {
  if (v3.is_array()) {
    json out = json::array();
    for (const json& item : v3) out.push_back(Schema(item));
    return out;
  }
  if (!v3.is_object()) return v3;
  json out = json::object();
  for (const auto& [key, value] : v3.items()) {
    if (key == "$ref" && value.is_string()) {
      std::string ref = value.get<std::string>();
      if (ref.rfind(kV3Refs, 0) == 0) ref = std::string(kV2Refs) + ref.substr(kV3Refs.size());
      out[key] = ref;
    } else if (key == "allOf" && value.is_array() && value.size() == 1 &&
               value[0].contains("$ref")) {
      out["$ref"] = Schema(value[0])["$ref"];
    } else if (key == "default" && v3.contains("allOf")) {
      // v2 gives a reference no siblings but its description.
    } else if (key == "properties" || key == "x-kubernetes-group-version-kind" || key == "enum" ||
               key == "required") {
      out[key] = value.is_object() ? json::object() : value;
      if (value.is_object()) {
        for (const auto& [name, property] : value.items()) out[key][name] = Schema(property);
      }
    } else {
      out[key] = Schema(value);
    }
  }
  return out;
}

// A v3 parameter ({name, in, description, required, schema: {type, ...}}) with its schema's
// keys inline, as v2 writes non-body parameters.
json Parameter(const json& v3) {
  json out = json::object();
  for (const auto& [key, value] : v3.items()) {
    if (key == "schema" && value.is_object()) {
      for (const auto& [schema_key, schema_value] : value.items()) out[schema_key] = schema_value;
    } else {
      out[key] = value;
    }
  }
  return out;
}

json Parameters(const json& v3) {
  json out = json::array();
  for (const json& parameter : v3) out.push_back(Parameter(parameter));
  return out;
}

json Operation(const json& v3) {
  json out = json::object();
  json produces = json::array();
  for (const auto& [key, value] : v3.items()) {
    if (key == "parameters") {
      out["parameters"] = Parameters(value);
    } else if (key == "requestBody") {
      json consumes = json::array();
      json schema;
      const json content = value.value("content", json::object());
      for (const auto& [type, media] : content.items()) {
        consumes.push_back(type);
        if (schema.is_null() && media.contains("schema")) schema = Schema(media["schema"]);
      }
      json body = {{"in", "body"}, {"name", "body"}, {"required", value.value("required", false)}};
      if (!schema.is_null()) body["schema"] = std::move(schema);
      if (!out.contains("parameters")) out["parameters"] = json::array();
      out["parameters"].insert(out["parameters"].begin(), std::move(body));
      out["consumes"] = std::move(consumes);
    } else if (key == "responses") {
      json responses = json::object();
      for (const auto& [code, response] : value.items()) {
        json r = {{"description", response.value("description", "")}};
        const json content = response.value("content", json::object());
        for (const auto& [type, media] : content.items()) {
          if (!r.contains("schema") && media.contains("schema"))
            r["schema"] = Schema(media["schema"]);
          if (std::find(produces.begin(), produces.end(), type) == produces.end()) {
            produces.push_back(type);
          }
        }
        responses[code] = std::move(r);
      }
      out["responses"] = std::move(responses);
    } else {
      out[key] = value;
    }
  }
  if (!out.contains("consumes")) out["consumes"] = json::array({"*/*"});
  if (!produces.empty()) out["produces"] = std::move(produces);
  out["schemes"] = json::array({"https"});
  return out;
}

// Adds `definition` under `name`; a name several group-versions define (DeleteOptions,
// WatchEvent, ...) keeps one schema and every group-version-kind any of them lists.
void AddDefinition(json& definitions, const std::string& name, json definition) {
  auto it = definitions.find(name);
  if (it == definitions.end()) {
    definitions[name] = std::move(definition);
    return;
  }
  static constexpr const char* kGvk = "x-kubernetes-group-version-kind";
  if (!definition.contains(kGvk)) return;
  json& kept = (*it)[kGvk];
  if (!kept.is_array()) kept = json::array();
  for (const json& gvk : definition[kGvk]) {
    if (std::find(kept.begin(), kept.end(), gvk) == kept.end()) kept.push_back(gvk);
  }
}

}  // namespace

json OpenApiV2FromV3(const std::vector<json>& v3_documents) {
  json paths = json::object();
  json definitions = json::object();
  for (const json& document : v3_documents) {
    const json document_paths = document.value("paths", json::object());
    for (const auto& [path, item] : document_paths.items()) {
      json out = json::object();
      for (const auto& [key, value] : item.items()) {
        out[key] = key == "parameters" ? Parameters(value) : Operation(value);
      }
      paths[path] = std::move(out);
    }
    const json components = document.value("components", json::object());
    const json schemas = components.value("schemas", json::object());
    for (const auto& [name, schema] : schemas.items()) {
      AddDefinition(definitions, name, Schema(schema));
    }
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "unversioned"}}},
          {"paths", std::move(paths)},
          {"definitions", std::move(definitions)},
          {"securityDefinitions",
           {{"BearerToken",
             {{"description", "Bearer Token authentication"},
              {"in", "header"},
              {"name", "authorization"},
              {"type", "apiKey"}}}}},
          {"security", json::array({{{"BearerToken", json::array()}}})}};
}

}  // namespace tenure::server
