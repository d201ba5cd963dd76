// Building blocks of the kinds' Table columns (kube-apiserver's printers,
// pkg/printers/internalversion); TableColumns and TableCells (kinds.h) render them. The server
// always prints wide: kubectl hides columns with priority > 0 unless -o wide.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "api/description.h"

namespace tenure::api {

// "Name" (format "name"), documented by metadata.name.
TableColumn NameColumn(int priority = 0);
// "Age" from metadata.creationTimestamp.
TableColumn AgeColumn();
// kubectl's age of the time at `key` of `object` at `now` ("5m12s"), or "<unknown>"
// (translateTimestampSince / translateMicroTimestampSince).
std::string Since(const nlohmann::json& object, const char* key,
                  std::chrono::system_clock::time_point now);

}  // namespace tenure::api
