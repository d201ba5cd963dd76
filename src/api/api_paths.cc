// GroupVersionPath, CollectionPath, ObjectPath and WithQuery: API paths with encoded segments.
#include "api/api_paths.h"

#include "api/url.h"

namespace tenure::api {

std::string GroupVersionPath(const KindInfo& kind, std::string_view version) {
  std::string out = kind.group.empty() ? "/api" : "/apis/" + PercentEncode(kind.group);
  out += '/';
  out += PercentEncode(version);
  return out;
}

std::string CollectionPath(const KindInfo& kind, std::string_view version,
                           std::string_view namespace_) {
  std::string out = GroupVersionPath(kind, version);
  if (kind.namespaced && !namespace_.empty()) {
    out += "/namespaces/";
    out += PercentEncode(namespace_);
  }
  out += '/';
  out += PercentEncode(kind.resource);
  return out;
}

std::string ObjectPath(const KindInfo& kind, std::string_view version, std::string_view namespace_,
                       std::string_view name) {
  std::string out = CollectionPath(kind, version, namespace_);
  out += '/';
  out += PercentEncode(name);
  return out;
}

std::string WithQuery(std::string path, QueryParams params) {
  char separator = path.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [key, value] : params) {
    path += separator;
    path += PercentEncode(key);
    path += '=';
    path += PercentEncode(value);
    separator = '&';
  }
  return path;
}

}  // namespace tenure::api
