// Small accessors over canonical JSON (objects as Canonicalize returns them): absent and null
// members read as missing, values of another type as empty.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace tenure::api::internal {

// The member `key` of `object`, or nullptr when `object` is no object or the member is absent or
// null.
const nlohmann::json* Child(const nlohmann::json& object, const char* key);
// The member `key` when it is present, else an empty object.
const nlohmann::json& Sub(const nlohmann::json& object, const char* key);
// The string member `key`, or "" when it is absent or no string.
std::string_view StringAt(const nlohmann::json& object, const char* key);
// The string at a dotted path ("spec.holderIdentity"), or "" as StringAt.
std::string_view StringAtPath(const nlohmann::json& object, std::string_view path);
const nlohmann::json& EmptyObject();

}  // namespace tenure::api::internal
