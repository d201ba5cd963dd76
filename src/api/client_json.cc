// Client JSON with kube-apiserver's nesting limit: a scan before the parser.
#include "api/client_json.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "api/json_text.h"

namespace tenure::api {

size_t JsonNesting(std::string_view text, size_t limit) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > limit) return limit + 1;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

size_t JsonValueDepth(const nlohmann::json& value) {
  std::vector<std::pair<const nlohmann::json*, size_t>> pending = {{&value, 0}};
  size_t deepest = 0;
  while (!pending.empty()) {
    auto [at, depth] = pending.back();
    pending.pop_back();
    if (!at->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *at) pending.emplace_back(&child, depth + 1);
  }
  return deepest;
}

Result<nlohmann::json> ParseClientJson(std::string_view text) {
  static const std::string kCannotDecode = "the body of the request could not be decoded as JSON";
  if (JsonNesting(text) > kMaxJsonNesting) {
    return Status::BadRequest(kCannotDecode + ": exceeded max depth " +
                              std::to_string(kMaxJsonNesting));
  }
  nlohmann::json parsed = ParseJson(text);
  if (parsed.is_discarded()) return Status::BadRequest(kCannotDecode);
  return parsed;
}

}  // namespace tenure::api
