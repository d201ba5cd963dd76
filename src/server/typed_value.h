// Objects as server-side apply's structured merge sees them (structured-merge-diff's typed
// package): the shape of every value, derived from the kinds' descriptions, and the walks over a
// value of that shape: its field set, the comparison of two values, the merge of an applied
// configuration into a live object, the removal of a set of fields, and the validation of an
// applied configuration.
//
// Shapes follow kube's OpenAPI as structured-merge-diff reads it: a struct's fields are
// separable unless the struct is atomic (x-kubernetes-map-type: atomic, ObjectReference); maps of
// strings are separable by key; a list is atomic unless it is a set (x-kubernetes-list-type: set,
// or a merge patch strategy without a key) or a map keyed by a field (list-type map, or a merge
// patch strategy with a merge key). Values are JSON; `nullptr` is an absent value, unlike JSON
// null.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/description.h"
#include "server/field_set.h"

namespace tenure::server {

struct Shape {
  enum class Kind : uint8_t { kScalar, kStruct, kMap, kList };
  enum class Scalar : uint8_t { kString, kNumber, kBoolean };
  Kind kind = Kind::kScalar;
  Scalar scalar = Scalar::kString;  // kScalar, and the elements of maps and scalar lists
  bool atomic = false;              // kStruct, kMap, kList: one value, owned whole
  // kStruct: its fields. kList: its elements' struct (nullptr: scalar elements).
  const api::ObjectDescription* object = nullptr;
  bool associative = false;  // kList: items identified by `key`, or by value when it is empty
  std::string_view key;

  // The shape of a struct (an object of the kinds' descriptions).
  static Shape Of(const api::ObjectDescription& object);
  static Shape Of(const api::FieldDescription& field);
  // kList and kMap: the shape of their elements.
  Shape Element() const;
  // kStruct: the shape of a field it declares; kMap: the element's. nullopt otherwise.
  std::optional<Shape> Child(std::string_view name) const;
  // kStruct: whether `element` names a field it declares.
  bool Declares(const PathElement& element) const;
};

// The fields a value sets (typed.ToFieldSet): every scalar, atomic value, list item, map entry,
// and every struct field that is null or an empty object.
FieldSet ToFieldSet(const Shape& shape, const nlohmann::json& value);

// The fields added, changed and removed from `lhs` to `rhs` (typed.Compare).
struct Comparison {
  FieldSet added;
  FieldSet modified;
  FieldSet removed;
  bool Same() const { return added.Empty() && modified.Empty() && removed.Empty(); }
};
Comparison Compare(const Shape& shape, const nlohmann::json& lhs, const nlohmann::json& rhs);

// `rhs` merged into `lhs` (typed.Merge): scalars and atomic values replaced, structs and maps
// merged by field, associative lists by item keeping lhs's order around rhs's. Internal for a
// configuration whose lists repeat a key or have items without their key field.
Result<nlohmann::json> Merge(const Shape& shape, const nlohmann::json& lhs,
                             const nlohmann::json& rhs);

// `value` without the fields of `remove` (typed.RemoveItems). A struct or map left empty becomes
// null, as an unset field.
nlohmann::json RemoveItems(const Shape& shape, const nlohmann::json& value, const FieldSet& remove);

// `set` with every struct field that has paths below it also a member
// (fieldpath.Set.EnsureNamedFieldsAreMembers): removing the set then removes those fields too.
FieldSet EnsureNamedFieldsAreMembers(const FieldSet& set, const Shape& shape);

// What structured-merge-diff's conversion to a typed value reports of an applied configuration:
// fields the schema does not declare, values of the wrong type, list items without their key or
// repeated. "" when it is valid; else ".spec.x: field not declared in schema" (several errors:
// "errors:\n  .a: ...\n  .b: ...").
std::string ValidateTyped(const Shape& shape, const nlohmann::json& value);

}  // namespace tenure::server
