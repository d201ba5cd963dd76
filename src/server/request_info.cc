// ParseRequestInfo: the verb, group, version, namespace, resource and name of an API request.
#include "server/request_info.h"

#include <string_view>
#include <vector>

#include "server/query_options.h"

namespace tenure::server {

namespace {
std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// The verb of a method on a collection (`named` false) or on one object.
std::optional<Verb> RequestVerb(const HttpRequest& request, bool legacy_watch, bool named) {
  const std::string& m = request.method;
  if (legacy_watch) return Verb::kWatch;
  if (m == "GET" || m == "HEAD") {
    if (QueryBool(request, "watch")) return Verb::kWatch;
    return named ? Verb::kGet : Verb::kList;
  }
  if (m == "POST") return Verb::kCreate;
  if (m == "PUT") return Verb::kUpdate;
  if (m == "PATCH") return Verb::kPatch;
  if (m == "DELETE") return named ? Verb::kDelete : Verb::kDeleteCollection;
  return std::nullopt;
}

}  // namespace

RequestInfo ParseRequestInfo(const HttpRequest& request) {
  RequestInfo info;
  std::vector<std::string> parts = SplitPath(request.path);
  if (parts.empty() || (parts[0] != "api" && parts[0] != "apis")) return info;
  info.api_prefix = parts[0];
  size_t i = 1;
  if (info.api_prefix == "apis") {
    if (parts.size() < 3) return info;  // /apis, /apis/group: discovery
    info.group = parts[1];
    info.version = parts[2];
    i = 3;
  } else {
    if (parts.size() < 2) return info;  // /api
    info.version = parts[1];
    i = 2;
  }
  if (i >= parts.size()) return info;  // /api/v1: discovery
  info.is_resource_request = true;

  if (parts[i] == "watch") {
    info.legacy_watch = true;
    ++i;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(i), parts.end());
  if (!rest.empty() && rest[0] == "namespaces") {
    // A namespace's own subresources (kube's namespaceSubresources) stay the namespace object's.
    const bool own_subresource = rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize");
    if (rest.size() >= 3 && !own_subresource) {
      info.namespace_ = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    } else if (rest.size() == 2) {
      // /api/v1/namespaces/NAME is the namespace object itself.
      info.name = rest[1];
      rest.resize(1);
    }
  }
  if (!rest.empty()) info.resource = rest[0];
  if (rest.size() >= 2) info.name = rest[1];
  if (rest.size() >= 3) info.subresource = rest[2];
  if (rest.size() > 3) info.is_resource_request = false;  // unknown deeper path

  info.verb = RequestVerb(request, info.legacy_watch, !info.name.empty());
  return info;
}

}  // namespace tenure::server
