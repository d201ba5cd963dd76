// Conversion between tenure::Status and the Kubernetes Status object (meta/v1 Status) on the wire.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "tenure/status.h"

namespace tenure::api {

// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":...,
//  "reason":...,"details":{...,"causes":[...]},"code":...}; "Success" for an OK status.
nlohmann::json StatusToJson(const Status& status);
std::string StatusToJsonText(const Status& status);

// The Status an error response stands for. `http_code` is used when the body is not a Status
// object (a proxy's HTML page, say): then the reason comes from the code alone.
Status StatusFromResponse(int http_code, std::string_view body);

}  // namespace tenure::api
