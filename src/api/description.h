// The one description of each kind tenure serves, from which everything kind-specific is derived:
// the canonicalizer (canonicalize.cc), the typed codec (codec.h), validation (its hooks), Table
// columns and cells, field selectors, strategic-merge-patch list rules, discovery, the OpenAPI
// documents (server/openapi_schemas.h) and the reading of protobuf bodies (server/protobuf_body.h).
//
// A kind is a KindDescription: its KindInfo (names, versions, scope, verbs), a tree of object
// descriptions whose fields carry their JSON name, wire type, emit rule (Go's encoding of the
// field), Go type (named in decode errors), OpenAPI documentation and list rules, and the typed
// struct member they bind to; then its Table columns, selectable fields and validation hooks.
// Nested objects (ObjectMeta, ObjectReference, ...) are shared descriptions (meta_descriptions.h).
// Adding a kind: one kind_<name>.cc with its KindDescription, its validation hooks in
// kind_validation.cc, and one line each in kind_entries.h and AllKinds() (kinds.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "api/typed_member.h"
#include "api/validation.h"

namespace tenure::api {

enum class FieldType : uint8_t {
  kString,
  kInt32,
  kInt64,
  kBool,
  kMicroTime,  // metav1.MicroTime: RFC 3339 with six fractional digits
  kTime,       // metav1.Time: RFC 3339 in whole seconds
  kStringMap,
  kBytesMap,  // map of base64 strings (ConfigMap.binaryData)
  kStringList,
  kObject,
  kObjectList,
  kDroppedString,  // accepted when a string, never emitted (selfLink; apiVersion/kind at top)
};

// How Go's encoder emits the field (its Go type and json tag).
enum class Emit : uint8_t {
  kPointer,    // emitted whenever set, even when zero
  kOmitEmpty,  // emitted unless "", 0, false, empty map or list (times and objects: when set)
  kAlways,     // always emitted: "" / 0 / false / {} / [] / null (times) when unset
};

struct ObjectDescription;

struct FieldDescription {
  std::string_view name;  // the JSON name
  FieldType type = FieldType::kString;
  Emit emit = Emit::kOmitEmpty;
  std::string go_type;       // named in decode errors: "int32", "v1.LeaseSpec", "[]string"
  std::string elem_go_type;  // element type of lists and maps
  // The object of kObject / kObjectList fields, and Time / MicroTime for times.
  const ObjectDescription* object = nullptr;
  std::string doc;               // the OpenAPI description (kube-apiserver's text)
  bool required = false;         // listed in the OpenAPI schema's "required"
  bool openapi_default = false;  // the OpenAPI schema gives the zero value as "default"
  std::vector<std::string_view> enum_values;  // OpenAPI "enum"
  // Lists: x-kubernetes-list-type ("atomic", "set", "map"); merge_key is the list-map key and,
  // with patch_merge, the strategic-merge-patch key (a set of strings has none).
  std::string_view list_type;
  std::string_view merge_key;
  bool patch_merge = false;  // x-kubernetes-patch-strategy: merge
  // The member of the typed struct (types.h) holding the field; unset when it has none.
  TypedMember typed;
  // The field's number in kube's generated.proto, set on the fields a protobuf body may carry
  // (server/protobuf_body.h reads them; a kind accepts protobuf when its object has any); 0: not
  // read from protobuf (server-owned, or never sent that way).
  uint32_t proto = 0;

  // Modifiers for the builders below: field::String(...).Required().Bind<&LeaseSpec::strategy>().
  FieldDescription Required() &&;
  FieldDescription OpenApiDefault() &&;
  FieldDescription Enum(std::vector<std::string_view> values) &&;
  FieldDescription ListType(std::string_view list_type) &&;
  FieldDescription PatchMerge(std::string_view merge_key = {}) &&;
  FieldDescription Proto(uint32_t number) &&;
  template <auto Member>
  FieldDescription Bind() && {
    typed = BindMember<Member>();
    return std::move(*this);
  }
};

struct ObjectDescription {
  std::string_view go_name;            // "LeaseSpec": named in decode errors and OpenAPI
  std::string_view go_package = "v1";  // fields holding it have Go type "<go_package>.<go_name>"
  // Where the OpenAPI schema name lives: "" for the kind's group-version
  // ("io.k8s.api.coordination.v1."), else a fixed prefix ("io.k8s.apimachinery.pkg.apis.meta.v1.").
  std::string_view openapi_package;
  std::string doc;
  std::vector<FieldDescription> fields;
  std::string_view map_type;                 // x-kubernetes-map-type
  std::string_view openapi_type = "object";  // an object without fields: its type and format
  std::string_view openapi_format;           // ("string", "date-time" for Time)
  // Any JSON object, kept as sent (FieldsV1: a set of field paths, not decoded by the schema).
  bool opaque = false;

  const FieldDescription* Find(std::string_view name) const;
  // "v1.LeaseSpec"
  std::string go_type() const;
};

// Whether Go's encoder writes the field with canonical value `value` (its emit rule; dropped
// fields never).
bool Emitted(const FieldDescription& field, const nlohmann::json& value);
// What an unset kAlways field is written as: "", 0, false, null (times), [], {} (maps), or its
// object with its own kAlways fields.
nlohmann::json ZeroValue(const FieldDescription& field);

// The field at a dotted path ("spec.holderIdentity") below `object`, or nullptr.
const FieldDescription* FieldAt(const ObjectDescription& object, std::string_view path);

// Field builders with the Go type names tenure's kinds use ("string", "int32", ...).
namespace field {
FieldDescription String(std::string_view name, Emit emit, std::string doc,
                        std::string_view go_type = "string");
FieldDescription Int32(std::string_view name, Emit emit, std::string doc);
FieldDescription Int64(std::string_view name, Emit emit, std::string doc);
FieldDescription Bool(std::string_view name, Emit emit, std::string doc);
FieldDescription Time(std::string_view name, Emit emit, std::string doc);
FieldDescription MicroTime(std::string_view name, Emit emit, std::string doc);
FieldDescription StringMap(std::string_view name, Emit emit, std::string doc);
FieldDescription BytesMap(std::string_view name, Emit emit, std::string doc);
FieldDescription StringList(std::string_view name, Emit emit, std::string doc,
                            std::string_view elem_go_type = "string");
FieldDescription Object(std::string_view name, Emit emit, const ObjectDescription& object,
                        std::string doc);
FieldDescription ObjectList(std::string_view name, Emit emit, const ObjectDescription& object,
                            std::string doc);
FieldDescription DroppedString(std::string_view name, std::string doc);
}  // namespace field

// One column of the kind's Table (kube-apiserver's printer): documented by `field`'s OpenAPI
// description unless `description` is given; its cell is the string at `field` unless `cell`
// computes it.
struct TableColumn {
  std::string_view name;         // "Holder"
  std::string_view field;        // "spec.holderIdentity"
  std::string_view description;  // for columns that show no single field
  int priority = 0;              // > 0: shown by kubectl only with -o wide
  std::string_view format;       // "name" for the Name column
  nlohmann::json (*cell)(const nlohmann::json& object,
                         std::chrono::system_clock::time_point now) = nullptr;
};

// A field selector label the kind supports (beyond metadata.name and metadata.namespace, which
// every kind has): the string at `field` (the label itself when empty), or what `value` computes.
struct SelectorField {
  std::string_view label;  // "spec.leaseName", "name"
  std::string_view field;  // "metadata.name" for the label "name"
  std::string (*value)(const nlohmann::json& object) = nullptr;
};

// The kind's strategy validation (kind_validation.h). ValidateCreate/ValidateUpdate run them
// with the generic object-meta checks of rest.BeforeCreate/BeforeUpdate around them.
struct KindValidation {
  void (*create)(const nlohmann::json& object, FieldErrors& errs) = nullptr;
  void (*update)(const nlohmann::json& object, const nlohmann::json& old_object,
                 FieldErrors& errs) = nullptr;
  // `update` reads nothing of the old object but its metadata.
  bool update_reads_only_old_metadata = false;
};

struct KindDescription : KindInfo {
  const ObjectDescription* object = nullptr;  // apiVersion, kind, metadata, spec, ...
  ObjectDescription list;                     // "<Kind>List": ListObject(...)
  std::vector<TableColumn> columns;
  std::vector<SelectorField> selector_fields;
  KindValidation validation;
};

// The description of a kind of AllKinds() (each of them is a KindDescription).
const KindDescription& Describe(const KindInfo& kind);

// Every verb kube-apiserver serves on a resource, sorted (Namespace lacks deletecollection).
std::vector<std::string_view> AllVerbs();

}  // namespace tenure::api
