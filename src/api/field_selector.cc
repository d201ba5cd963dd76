// SelectableField: a kind's field selector labels from its description (kube's ToSelectableFields).
#include "api/canonical_json.h"
#include "api/description.h"
#include "api/kinds.h"

namespace tenure::api {

Result<std::string> SelectableField(const KindInfo& kind, const nlohmann::json& object,
                                    std::string_view field) {
  if (field == "metadata.name" || field == "metadata.namespace") {
    return std::string(internal::StringAtPath(object, field));
  }
  for (const SelectorField& s : Describe(kind).selector_fields) {
    if (s.label != field) continue;
    if (s.value != nullptr) return s.value(object);
    return std::string(internal::StringAtPath(object, s.field.empty() ? s.label : s.field));
  }
  return Status::BadRequest("field label not supported: " + std::string(field));
}

}  // namespace tenure::api
