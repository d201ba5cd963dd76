// YamlToJson: yaml-cpp's node tree as nlohmann::json, scalars typed by the core schema.
#include "server/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace tenure::server {
namespace {

using nlohmann::json;

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?: go-yaml's float, scanned in one pass.
bool IsYamlFloat(std::string_view t) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > start;
  };
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!digits()) return false;
  } else {
    if (!digits()) return false;
    if (i < t.size() && t[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    if (!digits()) return false;
  }
  return i == t.size();
}

// go-yaml's int: Go's ParseInt with base 0 (0x hex, a leading 0 octal), underscores dropped.
std::optional<long long> YamlInt(std::string_view t) {
  std::string plain;
  for (char c : t) {
    if (c != '_') plain += c;
  }
  if (plain.empty() || plain.size() > 64) return std::nullopt;
  const size_t digits_at = (plain[0] == '-' || plain[0] == '+') ? 1 : 0;
  if (digits_at >= plain.size() || plain[digits_at] < '0' || plain[digits_at] > '9') {
    return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(plain.c_str(), &end, 0);
  if (errno != 0 || end != plain.c_str() + plain.size()) return std::nullopt;
  return value;
}

// Plain scalars typed as sigs.k8s.io/yaml's go-yaml (YAML 1.1) does; quoted ones stay strings.
json Scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: always a string
  static const std::set<std::string_view> kNull = {"", "~", "null", "Null", "NULL"};
  static const std::set<std::string_view> kTrue = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                                   "True", "TRUE", "on",  "On",  "ON"};
  static const std::set<std::string_view> kFalse = {"n",     "N",     "no",  "No",  "NO", "false",
                                                    "False", "FALSE", "off", "Off", "OFF"};
  if (kNull.contains(text)) return nullptr;
  if (kTrue.contains(text)) return true;
  if (kFalse.contains(text)) return false;
  if (auto value = YamlInt(text)) return *value;
  if (IsYamlFloat(text)) {
    // Out of a double's range: go-yaml keeps it a string, and so does JSON's lack of infinity.
    errno = 0;
    const double value = std::strtod(text.c_str(), nullptr);
    if (errno == 0) return value;
  }
  return text;
}

// Limits for what a client sends: nesting no deeper than yaml-cpp parses at all (only aliases
// can build more), and no more values than the text could hold without aliases plus a margin,
// so that a few bytes of anchors and aliases cannot expand into gigabytes (or loop: an alias
// inside its own anchor).
constexpr int kMaxDepth = 2048;

struct Budget {
  size_t nodes_left;
};

Status TooDeep() {
  return Status::BadRequest("yaml: exceeded max depth of " + std::to_string(kMaxDepth));
}

Status ExcessiveAliasing() {
  return Status::BadRequest("yaml: document contains excessive aliasing");
}

Result<json> Convert(const YAML::Node& node, int depth, Budget& budget) {
  if (depth > kMaxDepth) return TooDeep();
  if (budget.nodes_left == 0) return ExcessiveAliasing();
  --budget.nodes_left;
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return json(nullptr);
    case YAML::NodeType::Scalar:
      return Scalar(node);
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) {
        auto value = Convert(item, depth + 1, budget);
        if (!value.ok()) return value.status();
        out.push_back(std::move(*value));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& entry : node) {
        auto value = Convert(entry.second, depth + 1, budget);
        if (!value.ok()) return value.status();
        out[entry.first.as<std::string>()] = std::move(*value);
      }
      return out;
    }
  }
  return json(nullptr);
}

}  // namespace

Result<json> YamlToJson(std::string_view text) {
  try {
    // Every value of an alias-free document costs at least two bytes of text; aliases may add
    // as many values again as a document of 100,000 (go-yaml refuses mostly-alias documents
    // past a similar size).
    Budget budget{text.size() / 2 + 100000};
    return Convert(YAML::Load(std::string(text)), 0, budget);
  } catch (const YAML::Exception& e) {
    return Status::BadRequest("invalid YAML at line " + std::to_string(e.mark.line + 1) +
                              ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace tenure::server
