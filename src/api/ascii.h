// ASCII case rules of protocol text (an Authorization scheme, a query parameter's boolean), where
// Go's strings.EqualFold / ToLower meet only ASCII in practice.
#pragma once

#include <string_view>

namespace tenure::api {

inline bool EqualsIgnoringAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace tenure::api
