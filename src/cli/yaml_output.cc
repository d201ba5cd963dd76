// ToYaml: JSON as kubectl's `-o yaml` text, quoting strings YAML would read as another type.
#include "cli/yaml_output.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>

namespace tenure::cli {

namespace {

using nlohmann::json;

// A string may be written plain when no YAML 1.1/1.2 reader would take it for another type or
// for syntax. Conservative: anything starting with a digit or sign is quoted.
bool PlainIsSafe(const std::string& s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front())) ||
      std::isspace(static_cast<unsigned char>(s.back()))) {
    return false;
  }
  if (std::string_view("-?:,[]{}#&*!|>'\"%@`+.0123456789").find(s.front()) !=
      std::string_view::npos) {
    return false;
  }
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos || s.back() == ':') {
    return false;
  }
  static const std::regex kSpecial(
      "y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|"
      "null|Null|NULL|~|\\.inf|\\.Inf|\\.INF|\\.nan|\\.NaN|\\.NAN");
  return !std::regex_match(s, kSpecial);
}

std::string Scalar(const json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return PlainIsSafe(s) ? s : v.dump();  // JSON's escaping is valid double-quoted YAML
  }
  if (v.is_null()) return "null";
  return v.dump();
}

std::string Inline(const json& v) {
  if (v.is_object() && v.empty()) return "{}";
  if (v.is_array() && v.empty()) return "[]";
  return Scalar(v);
}

void Emit(const json& v, const std::string& indent, std::string& out);

// The entries of an object, each line starting at `indent`; the first line's indent is already
// written by the caller when `first_inline` (a list item "- key: ...").
void EmitObject(const json& obj, const std::string& indent, bool first_inline, std::string& out) {
  bool first = true;
  for (const auto& [key, value] : obj.items()) {
    if (!(first && first_inline)) out += indent;
    first = false;
    out += Scalar(json(key)) + ":";
    if (value.is_object() && !value.empty()) {
      out += "\n";
      EmitObject(value, indent + "  ", false, out);
    } else if (value.is_array() && !value.empty()) {
      out += "\n";
      Emit(value, indent, out);  // kubectl: list items at the key's indentation
    } else {
      out += " " + Inline(value) + "\n";
    }
  }
}

void Emit(const json& v, const std::string& indent, std::string& out) {
  if (v.is_object() && !v.empty()) {
    EmitObject(v, indent, false, out);
  } else if (v.is_array() && !v.empty()) {
    for (const json& item : v) {
      out += indent + "-";
      if (item.is_object() && !item.empty()) {
        out += " ";
        EmitObject(item, indent + "  ", true, out);
      } else if (item.is_array() && !item.empty()) {
        out += "\n";
        Emit(item, indent + "  ", out);
      } else {
        out += " " + Inline(item) + "\n";
      }
    }
  } else {
    out += indent + Inline(v) + "\n";
  }
}

}  // namespace

std::string ToYaml(const nlohmann::json& value) {
  std::string out;
  Emit(value, "", out);
  return out;
}

}  // namespace tenure::cli
