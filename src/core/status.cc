// Status: the HTTP code and Kubernetes reason name of each Reason; ToString, ReasonFromName;
// BadResultAccess, what Result::value() throws on an error.
#include "tenure/status.h"

namespace tenure {

namespace {
struct ReasonInfo {
  Reason reason;
  int code;
  std::string_view name;
};
constexpr ReasonInfo kReasons[] = {
    {Reason::kOk, 200, ""},
    {Reason::kNotFound, 404, "NotFound"},
    {Reason::kAlreadyExists, 409, "AlreadyExists"},
    {Reason::kConflict, 409, "Conflict"},
    {Reason::kInvalid, 422, "Invalid"},
    {Reason::kBadRequest, 400, "BadRequest"},
    {Reason::kUnauthorized, 401, "Unauthorized"},
    {Reason::kForbidden, 403, "Forbidden"},
    {Reason::kMethodNotAllowed, 405, "MethodNotAllowed"},
    {Reason::kNotAcceptable, 406, "NotAcceptable"},
    {Reason::kGone, 410, "Expired"},
    {Reason::kRequestEntityTooLarge, 413, "RequestEntityTooLarge"},
    {Reason::kUnsupportedMediaType, 415, "UnsupportedMediaType"},
    {Reason::kTooManyRequests, 429, "TooManyRequests"},
    {Reason::kInternalError, 500, "InternalError"},
    {Reason::kServiceUnavailable, 503, "ServiceUnavailable"},
    {Reason::kTimeout, 504, "Timeout"},
    {Reason::kUnknown, 500, ""},  // after InternalError: a reasonless 500 reads as it
};

const ReasonInfo& Info(Reason r) {
  for (const auto& info : kReasons) {
    if (info.reason == r) return info;
  }
  return kReasons[0];
}
}  // namespace

int Status::code() const { return Info(reason_).code; }

std::string_view Status::reason_name() const { return Info(reason_).name; }

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(reason_ == Reason::kUnknown ? "Unknown" : reason_name());
  out += ": ";
  out += message_;
  return out;
}

BadResultAccess::BadResultAccess(Status status)
    : status_(std::move(status)),
      what_("tenure::Result::value() on an error: " + status_.ToString()) {}

Reason Status::ReasonFromName(std::string_view name, int code) {
  if (name == "Gone") return Reason::kGone;
  for (const auto& info : kReasons) {
    if (!info.name.empty() && info.name == name) return info.reason;
  }
  // Unknown or empty reason: fall back to the HTTP code, as client-go does.
  for (const auto& info : kReasons) {
    if (info.code == code && info.reason != Reason::kOk) return info.reason;
  }
  if (code >= 500) return Reason::kInternalError;
  if (code >= 400) return Reason::kBadRequest;
  return Reason::kOk;
}

}  // namespace tenure
