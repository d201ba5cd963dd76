// ParseResourceVersion: a resourceVersion's text as a decimal integer.
#include "api/resource_version.h"

#include <charconv>

namespace tenure::api {

std::optional<uint64_t> ParseResourceVersion(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace tenure::api
