// ParseWithoutManagedFields: an object's JSON text parsed without its metadata.managedFields.
// Every object kube-apiserver (and tenure serve) returns carries them, and they are the most
// nested part of a small object (a map per field owned); a client that never reads them (a lock,
// an informer that drops them, a shared watch whose subscribers do not read them) need not
// build them only to erase them.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace tenure::api {

// The object of `text` without the member metadata.managedFields (the first one, when given
// twice); discarded (is_discarded()) when `text` is not JSON. Text that is not an object, or
// whose metadata has no managedFields, is parsed as it is.
nlohmann::json ParseWithoutManagedFields(std::string_view text);

// The same for a watch event line ({"type":...,"object":{...}}): its object's
// metadata.managedFields left out.
nlohmann::json ParseWatchEventWithoutManagedFields(std::string_view line);

}  // namespace tenure::api
