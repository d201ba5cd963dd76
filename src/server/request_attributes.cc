// RequestAttributes: authorizer attributes from a request and its RequestInfo.
#include "server/request_attributes.h"

#include <cctype>

#include "api/validation.h"
#include "server/selectors.h"

namespace tenure::server {

AuthorizationAttributes RequestAttributes(const HttpRequest& request, const RequestInfo& info,
                                          UserInfo user) {
  AuthorizationAttributes a;
  a.user = std::move(user);
  if (!info.is_resource_request || !info.verb) {
    a.resource_request = false;
    a.path = request.path;
    a.verb = request.method;
    for (char& c : a.verb) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return a;
  }
  a.verb = std::string(KubeName(*info.verb));
  a.namespace_ = info.namespace_;
  a.api_group = info.group;
  a.api_version = info.version;
  a.resource = info.resource;
  a.subresource = info.subresource;
  a.name = info.name;
  // kube's RequestInfo: a Namespace object is in itself (a RoleBinding in "foo" may grant get
  // on the namespace foo).
  if (a.namespace_.empty() && a.api_group.empty() && a.resource == "namespaces") {
    a.namespace_ = a.name;
  }
  if ((*info.verb == Verb::kList || *info.verb == Verb::kWatch) && a.name.empty() &&
      request.has_param("fieldSelector")) {
    auto selector = FieldSelector::Parse(request.param("fieldSelector"));
    if (selector.ok()) {
      std::string name = selector->ExactValue("metadata.name");
      if (!name.empty() && api::IsValidPathSegmentName(name).empty()) a.name = std::move(name);
    }
  }
  return a;
}

}  // namespace tenure::server
