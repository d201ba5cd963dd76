// ParseWithoutManagedFields: an object's JSON text parsed without its metadata.managedFields.
// Every object kube-apiserver (and tenure serve) returns carries them, and they are the most
// nested part of a small object (a map per field owned); a client that never reads them (a lock,
// an informer that drops them, a shared watch whose subscribers do not read them) need not
// build them only to erase them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tenure::api {

// The object of `text` without the member metadata.managedFields (the first one, when given
// twice); discarded (is_discarded()) when `text` is not JSON. Text that is not an object, or
// whose metadata has no managedFields, is parsed as it is.
nlohmann::json ParseWithoutManagedFields(std::string_view text);

// The text of the object `text` without that member, byte for byte the same otherwise; `text` as
// it is when it has none (or is not an object, or not JSON: nothing is checked past the member).
std::string TextWithoutManagedFields(std::string_view text);

}  // namespace tenure::api
