// YamlToJson: yaml-cpp's node tree as nlohmann::json, scalars typed by the core schema.
#include "server/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <regex>

namespace tenure::server {
namespace {

using nlohmann::json;

json Scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: always a string
  if (text.empty() || text == "null" || text == "Null" || text == "NULL" || text == "~") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(text, kInt)) {
    errno = 0;
    long long value = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == 0) return value;
  }
  if (std::regex_match(text, kFloat)) return std::strtod(text.c_str(), nullptr);
  return text;
}

json Convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return Scalar(node);
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) out.push_back(Convert(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& entry : node) out[entry.first.as<std::string>()] = Convert(entry.second);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

Result<json> YamlToJson(std::string_view text) {
  try {
    return Convert(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return Status::BadRequest("invalid YAML at line " + std::to_string(e.mark.line + 1) +
                              ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace tenure::server
