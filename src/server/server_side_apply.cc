// Server-side apply (application/apply-patch+yaml): the applied configuration merged into the
// existing object as strategic merge patch merges, without field ownership.
#include <nlohmann/json.hpp>
#include <string>

#include "server/patch.h"
#include "server/strategic_merge.h"

namespace tenure::server {
namespace {

using nlohmann::json;

json PruneNulls(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [key, child] : value.items()) {
      if (!child.is_null()) out[key] = PruneNulls(child);
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& child : value) out.push_back(PruneNulls(child));
    return out;
  }
  return value;
}

}  // namespace

Result<json> ApplyServerSideApply(const json* existing, const json& applied) {
  if (!applied.is_object()) {
    return Status::BadRequest(
        "error decoding YAML: the applied configuration must be an object, got " +
        std::string(applied.type_name()));
  }
  json configuration = applied;
  if (auto meta = configuration.find("metadata");
      meta != configuration.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  if (existing == nullptr || existing->is_null()) return PruneNulls(configuration);
  bool deleted = false;
  return StrategicMerge(KindOf(*existing, applied), *existing, configuration,
                        /*directives=*/false, &deleted);
}

}  // namespace tenure::server
