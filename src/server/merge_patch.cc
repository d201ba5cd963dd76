// RFC 7386 JSON merge patch (application/merge-patch+json).
#include <nlohmann/json.hpp>

#include "server/patch.h"

namespace tenure::server {
namespace {

using nlohmann::json;

json MergePatchValue(const json& target, const json& patch) {
  if (!patch.is_object()) return patch;
  json result = target.is_object() ? target : json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      result.erase(key);
    } else {
      auto it = result.find(key);
      result[key] = MergePatchValue(it != result.end() ? *it : json(), value);
    }
  }
  return result;
}

}  // namespace

Result<json> ApplyMergePatch(const json& target, const json& patch) {
  if (!patch.is_object()) return Status::BadRequest("Invalid JSON Patch");
  return MergePatchValue(target, patch);
}

}  // namespace tenure::server
