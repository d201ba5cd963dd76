// The body of a write request: the object of a create or update (JSON, or the protobuf some
// kubectl commands send), delete options, and the answers for bodies of an unknown type.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/kinds.h"
#include "server/http_server.h"

namespace tenure::server {

// A JSON object (BadRequest for any other JSON value; the client_json limits apply).
Result<nlohmann::json> ParseBody(const std::string& body);

// The object in a create or update body, by Content-Type: JSON or kubectl's protobuf; 415 for
// any other type.
Result<nlohmann::json> DecodeBody(const HttpRequest& request);

// 415 UnsupportedMediaType listing the types accepted for a patch or for an object.
Status UnsupportedBodyType(const std::string& content_type, bool patch);

// How to decode the request's object: fieldValidation=Strict makes unknown fields an error.
api::DecodeOptions DecodeOptionsOf(const HttpRequest& request);

}  // namespace tenure::server
