// GroupVersionPath, CollectionPath, ObjectPath (and their templates), WithQuery: API paths.
#include "api/api_paths.h"

#include "api/url.h"

namespace tenure::api {

namespace {

// The collection's path with `namespace_segment` as given: percent-encoded already, or a
// template's "{namespace}"; no namespace segment when it is "" or the kind is cluster-scoped.
std::string CollectionPathWith(const KindInfo& kind, std::string_view version,
                               std::string_view namespace_segment) {
  std::string out = GroupVersionPath(kind, version);
  if (kind.namespaced && !namespace_segment.empty()) {
    out += "/namespaces/";
    out += namespace_segment;
  }
  out += '/';
  out += PercentEncode(kind.resource);
  return out;
}

}  // namespace

std::string GroupVersionPath(std::string_view group, std::string_view version) {
  std::string out = group.empty() ? "/api" : "/apis/" + PercentEncode(group);
  out += '/';
  out += PercentEncode(version);
  return out;
}

std::string GroupVersionPath(const KindInfo& kind, std::string_view version) {
  return GroupVersionPath(kind.group, version);
}

std::string CollectionPath(const KindInfo& kind, std::string_view version,
                           std::string_view namespace_) {
  return CollectionPathWith(kind, version, PercentEncode(namespace_));
}

std::string ObjectPath(const KindInfo& kind, std::string_view version, std::string_view namespace_,
                       std::string_view name) {
  std::string out = CollectionPath(kind, version, namespace_);
  out += '/';
  out += PercentEncode(name);
  return out;
}

std::string CollectionPathTemplate(const KindInfo& kind, std::string_view version) {
  return CollectionPathWith(kind, version, "{namespace}");
}

std::string ObjectPathTemplate(const KindInfo& kind, std::string_view version) {
  return CollectionPathTemplate(kind, version) + "/{name}";
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
