// Paths into an object as server-side apply names them (sigs.k8s.io/structured-merge-diff's
// fieldpath): a struct field or map key, a list item by its key fields, a set item by its value,
// a list item by its index. Their total order, their text in conflict messages
// (".spec.holderIdentity", "[uid=\"x\"]", "[=\"a\"]", "[0]") and their keys in fieldsV1
// ("f:holderIdentity", "k:{\"uid\":\"x\"}", "v:\"a\"", "i:0").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tenure/status.h"

namespace tenure::server {

// The total order of JSON values structured-merge-diff sorts set items and keys by: numbers
// (integers and floats compared numerically) < strings < booleans < lists < maps < null.
int CompareValues(const nlohmann::json& a, const nlohmann::json& b);

struct PathElement {
  enum class Type : uint8_t { kField, kKey, kValue, kIndex };
  Type type = Type::kField;
  std::string name;      // kField: the field name or map key
  nlohmann::json value;  // kKey: an object of the item's key fields; kValue: the item itself
  int index = 0;         // kIndex

  static PathElement Field(std::string name);
  static PathElement Key(nlohmann::json fields);
  static PathElement Value(nlohmann::json item);
  static PathElement Index(int index);
};

// Fields before keys before values before indices; each among its own kind by name, key fields,
// value or index.
int Compare(const PathElement& a, const PathElement& b);
inline bool operator<(const PathElement& a, const PathElement& b) { return Compare(a, b) < 0; }
inline bool operator==(const PathElement& a, const PathElement& b) { return Compare(a, b) == 0; }

// ".name", "[uid=\"x\"]", "[=\"x\"]", "[0]" (fieldpath.PathElement.String).
std::string ToString(const PathElement& element);
// "f:name", "k:{\"uid\":\"x\"}", "v:\"x\"", "i:0".
std::string Serialize(const PathElement& element);
// The element a fieldsV1 key names; nullopt for a key of a type this server does not know (as
// structured-merge-diff, it is skipped); BadRequest for a malformed one.
Result<std::optional<PathElement>> ParsePathElement(std::string_view key);

using FieldPath = std::vector<PathElement>;
// ".spec.holderIdentity", ".metadata.ownerReferences[uid=\"x\"].name".
std::string ToString(const FieldPath& path);

}  // namespace tenure::server
