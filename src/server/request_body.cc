// ParseBody, DecodeBody (JSON or protobuf), UnsupportedBodyType and DecodeOptionsOf.
#include "server/request_body.h"

#include <string_view>

#include "api/client_json.h"
#include "server/protobuf_body.h"

namespace tenure::server {
namespace {

bool IsJsonContentType(const std::string& content_type) {
  std::string_view ct = content_type;
  ct = ct.substr(0, ct.find(';'));
  while (!ct.empty() && ct.back() == ' ') ct.remove_suffix(1);
  return ct.empty() || ct == "application/json" || ct == "*/*";
}

}  // namespace

Result<nlohmann::json> ParseBody(const std::string& body) {
  auto parsed = api::ParseClientJson(body);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return Status::BadRequest("the body of the request must be a JSON object");
  }
  return parsed;
}

Result<nlohmann::json> DecodeBody(const HttpRequest& request) {
  std::string content_type = request.header("content-type");
  if (content_type.rfind(kProtobufContentType, 0) == 0) {
    return DecodeProtobufObject(request.body);
  }
  if (!IsJsonContentType(content_type)) return UnsupportedBodyType(content_type, false);
  return ParseBody(request.body);
}

Status UnsupportedBodyType(const std::string& content_type, bool patch) {
  return Status(Reason::kUnsupportedMediaType,
                "the body of the request was in an unknown format (" + content_type +
                    ") - accepted media types include: " +
                    (patch ? "application/json-patch+json, application/merge-patch+json, "
                             "application/apply-patch+yaml, application/strategic-merge-patch+json"
                           : "application/json"));
}

api::DecodeOptions DecodeOptionsOf(const HttpRequest& request) {
  return {.strict = request.param("fieldValidation") == "Strict"};
}

}  // namespace tenure::server
