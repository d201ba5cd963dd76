// Continue tokens: encoding, kube's validation of a client's token, and the 410 of an expired one.
#include "server/continue_token.h"

#include <nlohmann/json.hpp>

#include "api/codec.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr std::string_view kTokenVersion = "meta.k8s.io/v1";

Status InvalidToken(std::string_view why) {
  return Status::BadRequest("invalid continue token: continue key is not valid" + std::string(why));
}

// Whether a rooted path is what Go's path.Clean makes of it: no empty, "." or ".." element and
// no trailing slash.
bool IsCleanPath(std::string_view path) {
  if (path == "/") return true;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view element = path.substr(start, end - start);
    if (element.empty() || element == "." || element == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string Encode(std::string_view start, int64_t revision) {
  json token = {{"v", kTokenVersion}, {"rv", revision}, {"start", std::string(start)}};
  return api::Base64UrlEncode(token.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace

std::string EncodeContinue(std::string_view prefix, std::string_view start_key, int64_t revision) {
  std::string_view start = start_key;
  if (start.starts_with(prefix)) start.remove_prefix(prefix.size());
  return Encode(start, revision);
}

Result<ContinueToken> DecodeContinue(std::string_view token, std::string_view prefix) {
  size_t bad_at = 0;
  auto bytes = api::Base64UrlDecode(token, &bad_at);
  if (!bytes) return InvalidToken(": illegal base64 data at input byte " + std::to_string(bad_at));
  json parsed = json::parse(*bytes, nullptr, false);
  if (!parsed.is_object()) return InvalidToken(": invalid character in the token's JSON");
  ContinueToken out;
  std::string version;
  std::string start;
  // Go's json.Unmarshal: a field of another type is an error, a missing one its zero value.
  if (auto v = parsed.find("v"); v != parsed.end()) {
    if (!v->is_string())
      return InvalidToken(": json: cannot unmarshal into field v of type string");
    version = v->get<std::string>();
  }
  if (auto rv = parsed.find("rv"); rv != parsed.end()) {
    if (!rv->is_number_integer()) {
      return InvalidToken(": json: cannot unmarshal into field rv of type int64");
    }
    out.revision = rv->get<int64_t>();
  }
  if (auto s = parsed.find("start"); s != parsed.end()) {
    if (!s->is_string()) {
      return InvalidToken(": json: cannot unmarshal into field start of type string");
    }
    start = s->get<std::string>();
  }
  if (version != kTokenVersion) {
    return InvalidToken(": server does not recognize this encoded version " + version);
  }
  if (out.revision == 0) {
    return InvalidToken(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (start.empty()) return InvalidToken(": encoded start key empty (version meta.k8s.io/v1)");
  // As kube: the start key, rooted, must be a clean path, so that it cannot climb out of the
  // prefix it is appended to.
  std::string rooted = start.starts_with('/') ? start : "/" + start;
  if (!IsCleanPath(rooted)) return InvalidToken(": " + start);
  out.start_key = std::string(prefix) + rooted.substr(1);
  return out;
}

Status ExpiredContinue(std::string_view prefix, std::string_view start_key) {
  Status status(Reason::kGone,
                "The provided continue parameter is too old to display a consistent list result. "
                "You can start a new list without the continue parameter, or use the continue "
                "token in this response to retrieve the remainder of the results. Continuing "
                "with the provided token results in an inconsistent list - objects that were "
                "created, modified, or deleted between the time the first chunk was returned and "
                "now may show up in the list.");
  status.set_list_continue(EncodeContinue(prefix, start_key, -1));
  return status;
}

}  // namespace tenure::server
