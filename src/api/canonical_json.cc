// Accessors over canonical JSON.
#include "api/canonical_json.h"

#include <string>

namespace tenure::api::internal {

const nlohmann::json* Child(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

const nlohmann::json& Sub(const nlohmann::json& object, const char* key) {
  const nlohmann::json* v = Child(object, key);
  return v != nullptr ? *v : EmptyObject();
}

std::string_view StringAt(const nlohmann::json& object, const char* key) {
  const nlohmann::json* v = Child(object, key);
  if (v == nullptr || !v->is_string()) return {};
  return v->get_ref<const std::string&>();
}

std::string_view StringAtPath(const nlohmann::json& object, std::string_view path) {
  const nlohmann::json* at = &object;
  for (size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
    at = &Sub(*at, std::string(path.substr(0, dot)).c_str());
    path.remove_prefix(dot + 1);
  }
  return StringAt(*at, std::string(path).c_str());
}

const nlohmann::json& EmptyObject() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

}  // namespace tenure::api::internal
