// Field builders and lookups of kind descriptions.
#include "api/description.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "api/meta_descriptions.h"

namespace tenure::api {

FieldDescription FieldDescription::Required() && {
  required = true;
  return std::move(*this);
}

FieldDescription FieldDescription::OpenApiDefault() && {
  openapi_default = true;
  return std::move(*this);
}

FieldDescription FieldDescription::Enum(std::vector<std::string_view> values) && {
  enum_values = std::move(values);
  return std::move(*this);
}

FieldDescription FieldDescription::ListType(std::string_view type) && {
  list_type = type;
  return std::move(*this);
}

FieldDescription FieldDescription::PatchMerge(std::string_view key) && {
  patch_merge = true;
  merge_key = key;
  return std::move(*this);
}

FieldDescription FieldDescription::Proto(uint32_t number) && {
  proto = number;
  return std::move(*this);
}

const FieldDescription* ObjectDescription::Find(std::string_view name) const {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string ObjectDescription::go_type() const {
  std::string out(go_package);
  out += '.';
  out += go_name;
  return out;
}

bool Emitted(const FieldDescription& field, const nlohmann::json& value) {
  switch (field.type) {
    case FieldType::kDroppedString:
      return false;
    case FieldType::kMicroTime:
    case FieldType::kTime:
    case FieldType::kObject:
      return true;  // Go's omitempty never omits a struct
    case FieldType::kString:
      return field.emit != Emit::kOmitEmpty || !value.get_ref<const std::string&>().empty();
    case FieldType::kInt32:
    case FieldType::kInt64:
      return field.emit != Emit::kOmitEmpty || value.get<int64_t>() != 0;
    case FieldType::kBool:
      return field.emit != Emit::kOmitEmpty || value.get<bool>();
    default:
      return field.emit != Emit::kOmitEmpty || !value.empty();
  }
}

nlohmann::json ZeroValue(const FieldDescription& field) {
  switch (field.type) {
    case FieldType::kString:
      return "";
    case FieldType::kInt32:
    case FieldType::kInt64:
      return 0;
    case FieldType::kBool:
      return false;
    case FieldType::kMicroTime:
    case FieldType::kTime:
      return nullptr;
    case FieldType::kObject: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& f : field.object->fields) {
        if (f.emit == Emit::kAlways) out[std::string(f.name)] = ZeroValue(f);
      }
      return out;
    }
    case FieldType::kStringMap:
    case FieldType::kBytesMap:
      return nlohmann::json::object();
    default:
      return nlohmann::json::array();
  }
}

const FieldDescription* FieldAt(const ObjectDescription& object, std::string_view path) {
  const ObjectDescription* at = &object;
  while (true) {
    const size_t dot = path.find('.');
    const FieldDescription* f = at->Find(path.substr(0, dot));
    if (f == nullptr || dot == std::string_view::npos) return f;
    if (f->object == nullptr) return nullptr;
    at = f->object;
    path.remove_prefix(dot + 1);
  }
}

const KindDescription& Describe(const KindInfo& kind) {
  // Every served kind is a KindDescription; a KindInfo made elsewhere (a path-only kind, say)
  // has no description, and asking for one is a programming error.
  const auto& all = AllKinds();
  const auto& bodies = SubresourceKinds();
  if (std::find(all.begin(), all.end(), &kind) == all.end() &&
      std::find(bodies.begin(), bodies.end(), &kind) == bodies.end()) {
    std::fprintf(stderr, "tenure: %.*s is not a served kind and has no description\n",
                 static_cast<int>(kind.kind.size()), kind.kind.data());
    std::abort();
  }
  return static_cast<const KindDescription&>(kind);
}

std::vector<std::string_view> AllVerbs() {
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

namespace field {
namespace {

FieldDescription Make(std::string_view name, FieldType type, Emit emit, std::string doc,
                      std::string_view go_type, std::string_view elem_go_type = {},
                      const ObjectDescription* object = nullptr) {
  FieldDescription f;
  f.name = name;
  f.type = type;
  f.emit = emit;
  f.go_type = go_type;
  f.elem_go_type = elem_go_type;
  f.object = object;
  f.doc = std::move(doc);
  return f;
}

}  // namespace

FieldDescription String(std::string_view name, Emit emit, std::string doc,
                        std::string_view go_type) {
  return Make(name, FieldType::kString, emit, std::move(doc), go_type);
}

FieldDescription Int32(std::string_view name, Emit emit, std::string doc) {
  return Make(name, FieldType::kInt32, emit, std::move(doc), "int32");
}

FieldDescription Int64(std::string_view name, Emit emit, std::string doc) {
  return Make(name, FieldType::kInt64, emit, std::move(doc), "int64");
}

FieldDescription Bool(std::string_view name, Emit emit, std::string doc) {
  return Make(name, FieldType::kBool, emit, std::move(doc), "bool");
}

// Go decodes a time from a JSON string: a non-string is reported against "string".
FieldDescription Time(std::string_view name, Emit emit, std::string doc) {
  return Make(name, FieldType::kTime, emit, std::move(doc), "string", {}, &TimeObject());
}

FieldDescription MicroTime(std::string_view name, Emit emit, std::string doc) {
  return Make(name, FieldType::kMicroTime, emit, std::move(doc), "string", {}, &MicroTimeObject());
}

FieldDescription StringMap(std::string_view name, Emit emit, std::string doc) {
  return Make(name, FieldType::kStringMap, emit, std::move(doc), "map[string]string", "string");
}

FieldDescription BytesMap(std::string_view name, Emit emit, std::string doc) {
  return Make(name, FieldType::kBytesMap, emit, std::move(doc), "map[string][]uint8", "[]uint8");
}

FieldDescription StringList(std::string_view name, Emit emit, std::string doc,
                            std::string_view elem_go_type) {
  return Make(name, FieldType::kStringList, emit, std::move(doc), "[]" + std::string(elem_go_type),
              elem_go_type);
}

FieldDescription Object(std::string_view name, Emit emit, const ObjectDescription& object,
                        std::string doc) {
  return Make(name, FieldType::kObject, emit, std::move(doc), object.go_type(), {}, &object);
}

FieldDescription ObjectList(std::string_view name, Emit emit, const ObjectDescription& object,
                            std::string doc) {
  const std::string elem = object.go_type();
  return Make(name, FieldType::kObjectList, emit, std::move(doc), "[]" + elem, elem, &object);
}

FieldDescription DroppedString(std::string_view name, std::string doc) {
  return Make(name, FieldType::kDroppedString, Emit::kOmitEmpty, std::move(doc), "string");
}

}  // namespace field
}  // namespace tenure::api
