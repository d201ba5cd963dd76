// Internal: the per-kind field schemas that drive Canonicalize and the typed decoders.
//
// A schema lists, per JSON object, every known field with its wire type, how Go's encoder emits
// it (pointer: only when set; omitempty: not when zero; always), and the Go type named in
// kube-apiserver's decode errors ("json: cannot unmarshal string into Go struct field
// LeaseSpec.spec.leaseDurationSeconds of type int32").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"

namespace tenure::api::internal {

enum class FieldType : uint8_t {
  kString,
  kInt32,
  kInt64,
  kBool,
  kMicroTime,
  kTime,
  kStringMap,
  kBytesMap,  // map of base64 strings (ConfigMap.binaryData)
  kStringList,
  kObject,
  kObjectList,
  kDroppedList,    // accepted when an array, never emitted (managedFields)
  kDroppedString,  // accepted when a string, never emitted (selfLink; apiVersion/kind at top)
};

enum class Emit : uint8_t {
  kPointer,    // emitted whenever set, even when zero
  kOmitEmpty,  // emitted unless "", 0, false, empty map or list
  kAlways,     // always emitted: "" / {} / null (times) when unset
};

struct ObjectSchema;

struct FieldSchema {
  std::string_view name;
  FieldType type;
  Emit emit;
  std::string_view go_type;       // type named in decode errors
  std::string_view elem_go_type;  // element type of lists and maps
  const ObjectSchema* object = nullptr;
};

struct ObjectSchema {
  std::string_view go_name;  // "LeaseSpec": the struct named in decode errors
  std::vector<FieldSchema> fields;
  const FieldSchema* Find(std::string_view name) const;
};

// The top-level schema of a kind (apiVersion, kind, metadata, spec, ...).
const ObjectSchema& SchemaFor(const KindInfo& kind);
const ObjectSchema& ObjectMetaSchema();

// Canonicalizes `in` (a JSON object) against `schema` into `out`, ignoring apiVersion/kind
// semantics. Returns "" on success, else the decode error text (a type error, or when `strict`,
// 'strict decoding error: unknown field "spec.x", ...').
std::string CanonicalizeObject(const ObjectSchema& schema, const nlohmann::json& in,
                               nlohmann::json& out, bool strict);

// Small accessors over canonical JSON.
const nlohmann::json* Child(const nlohmann::json& object, const char* key);
std::string_view StringAt(const nlohmann::json& object, const char* key);
const nlohmann::json& EmptyObject();

}  // namespace tenure::api::internal
