// StatusToJson and StatusFromResponse: tenure::Status to and from the meta/v1 Status object,
// through the typed codec over StatusObject()'s description.
#include "api/status_object.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/canonical_json.h"
#include "api/json_text.h"
#include "api/meta_descriptions.h"
#include "api/types.h"

namespace tenure::api {
namespace {

ApiStatus ToApiStatus(const Status& status) {
  ApiStatus out;
  out.metadata.continue_token = status.list_continue();
  out.status = status.ok() ? "Success" : "Failure";
  out.message = status.message();
  out.reason = status.reason_name();
  const StatusDetails& d = status.details();
  // A retry-after that is not positive is no advice: not sent (nor the details for it alone).
  ApiStatusDetails details{.name = d.name,
                           .group = d.group,
                           .kind = d.kind,
                           .uid = d.uid,
                           .causes = status.causes(),
                           .retry_after_seconds = std::max(d.retry_after_seconds, 0)};
  // kube's NewForbidden always sends details, empty ones too (a path: "details":{}).
  if (details != ApiStatusDetails{} || status.reason() == Reason::kForbidden) {
    out.details = std::move(details);
  }
  out.code = status.code();
  return out;
}

}  // namespace

nlohmann::json StatusToJson(const Status& status) {
  const ApiStatus object = ToApiStatus(status);
  nlohmann::json out = EncodeTyped(StatusObject(), &object);
  out["apiVersion"] = "v1";
  out["kind"] = "Status";
  return out;
}

// Messages quote what the client sent (a name from the URL, a selector), which need not be UTF-8:
// invalid bytes become U+FFFD instead of failing the answer.
std::string StatusToJsonText(const Status& status) {
  return StatusToJson(status).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Tolerant of whatever a server sends: the typed codec leaves a field of the wrong type at its
// zero value and skips causes that are no objects.
Status StatusFromResponse(int http_code, std::string_view body) {
  nlohmann::json j = ParseJson(body);
  if (!j.is_object() || internal::StringAt(j, "kind") != "Status") {
    std::string text(body.substr(0, 512));
    Reason reason = Status::ReasonFromName("", http_code);
    return Status(reason, "the server responded with HTTP " + std::to_string(http_code) +
                              (text.empty() ? "" : ": " + text));
  }
  ApiStatus object;
  DecodeTyped(StatusObject(), j, &object);
  ApiStatusDetails details = std::move(object.details).value_or(ApiStatusDetails{});
  // meta/v1: a code of 0 is "not set". A reply that failed as HTTP is never read as a success
  // (a caller would take an OK status for a value it does not have).
  const int code = object.code.value_or(0) != 0 ? *object.code : http_code;
  Reason reason = Status::ReasonFromName(object.reason, code);
  if (reason == Reason::kOk && (http_code < 200 || http_code > 299)) {
    reason = Status::ReasonFromName("", http_code);
  }
  Status status(reason, std::move(object.message), std::move(details.causes));
  status.set_details({.name = std::move(details.name),
                      .group = std::move(details.group),
                      .kind = std::move(details.kind),
                      .uid = std::move(details.uid),
                      .retry_after_seconds = details.retry_after_seconds});
  status.set_list_continue(std::move(object.metadata.continue_token));
  return status;
}

}  // namespace tenure::api
