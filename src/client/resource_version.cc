// ResourceVersionOf and KnownOlder: ordering versions of one object.
#include "client/resource_version.h"

#include <nlohmann/json.hpp>

namespace tenure::client {

std::optional<uint64_t> ResourceVersionOf(const nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return std::nullopt;
  auto rv = meta->find("resourceVersion");
  if (rv == meta->end() || !rv->is_string()) return std::nullopt;
  return ParseResourceVersion(rv->get_ref<const std::string&>());
}

bool KnownOlder(std::optional<uint64_t> a, std::optional<uint64_t> b) { return a && b && *a < *b; }

}  // namespace tenure::client
