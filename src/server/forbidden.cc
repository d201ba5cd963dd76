// ForbiddenStatus: kube-apiserver's 403 text and details.
#include "server/forbidden.h"

namespace tenure::server {
namespace {

// The escaping kube applies to the text it builds from the request (responsewriters.Forbidden).
std::string EscapeHtml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

Status ForbiddenStatus(const AuthorizationAttributes& a, std::string_view reason) {
  std::string inner = "User \"" + a.user.name + "\" cannot " + a.verb;
  std::string prefix = "forbidden";
  if (a.resource_request) {
    inner += " resource \"" + a.resource + (a.subresource.empty() ? "" : "/" + a.subresource) +
             "\" in API group \"" + a.api_group + "\"";
    inner += a.namespace_.empty() ? " at the cluster scope"
                                  : " in the namespace \"" + a.namespace_ + "\"";
    prefix = a.resource + (a.api_group.empty() ? "" : "." + a.api_group) +
             (a.name.empty() ? "" : " \"" + a.name + "\"") + " is forbidden";
  } else {
    inner += " path \"" + a.path + "\"";
  }
  std::string message = prefix + ": " + EscapeHtml(inner);
  if (!reason.empty()) message += ": " + std::string(reason);
  Status status(Reason::kForbidden, std::move(message));
  status.set_details({.name = a.name, .group = a.api_group, .kind = a.resource});
  return status;
}

}  // namespace tenure::server
