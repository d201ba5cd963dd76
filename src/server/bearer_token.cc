// BearerTokenOf: kube-apiserver's reading of "Authorization: Bearer <token>".
#include "server/bearer_token.h"

#include <cctype>

#include "api/ascii.h"

namespace tenure::server {
namespace {

// Go's strings.TrimSpace for the ASCII white space HTTP header values can hold.
std::string_view TrimSpace(std::string_view s) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::string> BearerTokenOf(std::string_view authorization) {
  std::string_view value = TrimSpace(authorization);
  size_t space = value.find(' ');
  if (space == std::string_view::npos) return std::nullopt;  // one part: no token
  if (!api::EqualsIgnoringAsciiCase(value.substr(0, space), "bearer")) return std::nullopt;
  std::string_view rest = value.substr(space + 1);
  std::string_view token = rest.substr(0, rest.find(' '));
  if (token.empty()) return std::nullopt;  // "Bearer  x": kube ignores it, with a warning
  return std::string(token);
}

}  // namespace tenure::server
