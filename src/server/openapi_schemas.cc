// OpenAPI schemas of object descriptions, each field as kube-apiserver's openapi-gen renders it.
#include "server/openapi_schemas.h"

namespace tenure::server {
namespace {

using api::FieldDescription;
using api::FieldType;
using api::ObjectDescription;
using nlohmann::json;

class SchemaWriter {
 public:
  SchemaWriter(std::string_view group, std::string_view version)
      : group_(group), version_(version) {}

  void Add(const ObjectDescription& object) {
    const std::string name = OpenApiSchemaName(object, group_, version_);
    if (schemas_.contains(name)) return;
    schemas_[name] = json::object();  // claimed before its fields, which may lead back here
    schemas_[name] = Object(object);
  }

  json Take() { return std::move(schemas_); }

 private:
  json Object(const ObjectDescription& object) {
    json out = {{"type", object.openapi_type}, {"description", object.doc}};
    if (!object.openapi_format.empty()) out["format"] = object.openapi_format;
    if (object.fields.empty()) return out;
    json properties = json::object();
    json required = json::array();
    for (const FieldDescription& f : object.fields) {
      properties[std::string(f.name)] = Field(f);
      if (f.required) required.push_back(f.name);
    }
    out["properties"] = std::move(properties);
    if (!required.empty()) out["required"] = std::move(required);
    if (!object.map_type.empty()) out["x-kubernetes-map-type"] = object.map_type;
    return out;
  }

  // {"allOf": [$ref]} of a field holding another schema.
  json Reference(const FieldDescription& f) {
    Add(*f.object);
    return {{"allOf", json::array({OpenApiRef(OpenApiSchemaName(*f.object, group_, version_))})}};
  }

  json Field(const FieldDescription& f) {
    json out;
    switch (f.type) {
      case FieldType::kString:
      case FieldType::kDroppedString:
        out = {{"type", "string"}};
        break;
      case FieldType::kInt32:
        out = {{"type", "integer"}, {"format", "int32"}};
        break;
      case FieldType::kInt64:
        out = {{"type", "integer"}, {"format", "int64"}};
        break;
      case FieldType::kBool:
        out = {{"type", "boolean"}};
        break;
      case FieldType::kMicroTime:
      case FieldType::kTime:
      case FieldType::kObject:
        out = Reference(f);
        break;
      case FieldType::kStringMap:
        out = {{"type", "object"}, {"additionalProperties", {{"type", "string"}, {"default", ""}}}};
        break;
      case FieldType::kBytesMap:
        out = {{"type", "object"},
               {"additionalProperties", {{"type", "string"}, {"format", "byte"}}}};
        break;
      case FieldType::kStringList:
        out = {{"type", "array"}, {"items", {{"type", "string"}, {"default", ""}}}};
        break;
      case FieldType::kObjectList: {
        json items = Reference(f);
        items["default"] = json::object();
        out = {{"type", "array"}, {"items", std::move(items)}};
        break;
      }
    }
    if (!f.doc.empty()) out["description"] = f.doc;
    if (f.openapi_default) {
      out["default"] = f.type == FieldType::kObject ? json::object() : api::ZeroValue(f);
    }
    if (!f.enum_values.empty()) out["enum"] = f.enum_values;
    if (!f.list_type.empty()) out["x-kubernetes-list-type"] = f.list_type;
    if (f.list_type == "map") out["x-kubernetes-list-map-keys"] = json::array({f.merge_key});
    if (f.patch_merge && !f.merge_key.empty()) out["x-kubernetes-patch-merge-key"] = f.merge_key;
    if (f.patch_merge) out["x-kubernetes-patch-strategy"] = "merge";
    return out;
  }

  std::string_view group_;
  std::string_view version_;
  json schemas_ = json::object();
};

}  // namespace

std::string OpenApiSchemaName(const ObjectDescription& object, std::string_view group,
                              std::string_view version) {
  std::string name(object.openapi_package);
  if (name.empty()) {
    // "io.k8s.api.coordination.v1." / "io.k8s.api.core.v1.": the Go package of the group-version.
    name = "io.k8s.api.";
    name += group.empty() ? "core" : group.substr(0, group.find('.'));
    name += '.';
    name += version;
    name += '.';
  }
  name += object.go_name;
  return name;
}

json OpenApiRef(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }

json OpenApiGvk(std::string_view group, std::string_view version, std::string_view kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

json OpenApiSchemas(const std::vector<const ObjectDescription*>& roots, std::string_view group,
                    std::string_view version) {
  SchemaWriter writer(group, version);
  for (const ObjectDescription* root : roots) writer.Add(*root);
  return writer.Take();
}

}  // namespace tenure::server
