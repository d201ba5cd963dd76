// JSON -> YAML text in kubectl's `-o yaml` layout (two-space indent, list items at their key's
// indentation, `{}` / `[]` for empty containers). Strings that YAML would read as something else
// (numbers, booleans, null, timestamps, text with indicators) are double-quoted, so the output
// parses back to exactly the input.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace tenure::cli {

std::string ToYaml(const nlohmann::json& value);

}  // namespace tenure::cli
