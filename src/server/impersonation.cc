// Impersonate: the Impersonate-* headers, each value authorized with verb impersonate.
#include "server/impersonation.h"

#include <algorithm>

#include "server/forbidden.h"

namespace tenure::server {
namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
constexpr std::string_view kExtraPrefix = "impersonate-extra-";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// kube's unescapeExtraKey: the header name's key, percent-decoded (a bad escape stays as is).
std::string UnescapeExtraKey(std::string_view key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '%' && i + 2 < key.size() && HexValue(key[i + 1]) >= 0 &&
        HexValue(key[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(key[i + 1]) * 16 + HexValue(key[i + 2]));
      i += 2;
      continue;
    }
    out += key[i];
  }
  return out;
}

// One value to impersonate, as kube's ObjectReference of it.
struct ImpersonationRequest {
  std::string kind;  // User, ServiceAccount, Group, UserExtra, UID
  std::string namespace_;
  std::string name;
  std::string api_version;  // authentication.k8s.io/v1 for UserExtra and UID
  std::string field_path;   // UserExtra: the key
};

// Go's %v of the []v1.ObjectReference kube names in its 400 message.
std::string DescribeRequests(const std::vector<ImpersonationRequest>& requests) {
  std::string out = "[";
  for (size_t i = 0; i < requests.size(); ++i) {
    const ImpersonationRequest& r = requests[i];
    if (i) out += ' ';
    out += "{" + r.kind + " " + r.namespace_ + " " + r.name + "  " + r.api_version + "  " +
           r.field_path + "}";
  }
  return out + "]";
}

bool Has(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

}  // namespace

Result<UserInfo> Impersonate(const HttpRequest& request, const UserInfo& requester,
                             const Authorizer& authorizer) {
  std::vector<ImpersonationRequest> requests;
  const std::string user = request.header("impersonate-user");
  bool groups_given = false, extras_given = false;
  if (!user.empty()) {
    std::string_view rest(user);
    bool service_account = false;
    if (rest.substr(0, kServiceAccountPrefix.size()) == kServiceAccountPrefix) {
      rest.remove_prefix(kServiceAccountPrefix.size());
      size_t colon = rest.find(':');
      if (colon != std::string_view::npos && colon > 0 && colon + 1 < rest.size() &&
          rest.find(':', colon + 1) == std::string_view::npos) {
        requests.push_back({.kind = "ServiceAccount",
                            .namespace_ = std::string(rest.substr(0, colon)),
                            .name = std::string(rest.substr(colon + 1))});
        service_account = true;
      }
    }
    if (!service_account) requests.push_back({.kind = "User", .name = user});
  }
  for (const std::string& group : HeaderValues(request.header("impersonate-group"))) {
    groups_given = true;
    requests.push_back({.kind = "Group", .name = group});
  }
  for (const auto& [name, value] : request.headers) {
    if (name.rfind(kExtraPrefix, 0) != 0) continue;
    extras_given = true;
    for (const std::string& v : HeaderValues(value)) {
      requests.push_back({.kind = "UserExtra",
                          .name = v,
                          .api_version = "authentication.k8s.io/v1",
                          .field_path = UnescapeExtraKey(name.substr(kExtraPrefix.size()))});
    }
  }
  const std::string uid = request.header("impersonate-uid");
  if (!uid.empty()) {
    requests.push_back({.kind = "UID", .name = uid, .api_version = "authentication.k8s.io/v1"});
  }
  if (requests.empty()) return requester;
  if ((groups_given || extras_given || !uid.empty()) && user.empty()) {
    return Status::BadRequest("requested " + DescribeRequests(requests) +
                              " without impersonating a user");
  }

  UserInfo acting;
  for (const ImpersonationRequest& r : requests) {
    AuthorizationAttributes may{
        .user = requester, .verb = "impersonate", .namespace_ = r.namespace_, .name = r.name};
    if (r.kind == "ServiceAccount") {
      may.resource = "serviceaccounts";
      acting.name = std::string(kServiceAccountPrefix) + r.namespace_ + ":" + r.name;
      if (!groups_given) {
        acting.groups = {"system:serviceaccounts", "system:serviceaccounts:" + r.namespace_};
      }
    } else if (r.kind == "User") {
      may.resource = "users";
      acting.name = r.name;
    } else if (r.kind == "Group") {
      may.resource = "groups";
      acting.groups.push_back(r.name);
    } else if (r.kind == "UserExtra") {
      may.api_group = "authentication.k8s.io";
      may.api_version = "v1";
      may.resource = "userextras";
      may.subresource = r.field_path;
      acting.extra[r.field_path].push_back(r.name);
    } else {  // UID
      may.api_group = "authentication.k8s.io";
      may.api_version = "v1";
      may.resource = "uids";
      acting.uid = r.name;
    }
    AuthorizationDecision decision = authorizer.Authorize(may);
    if (!decision.allowed) return ForbiddenStatus(may, decision.reason);
  }
  if (acting.name != kSystemAnonymous) {
    if (!Has(acting.groups, kSystemAuthenticated) && !Has(acting.groups, kSystemUnauthenticated)) {
      acting.groups.emplace_back(kSystemAuthenticated);
    }
  } else if (!Has(acting.groups, kSystemUnauthenticated)) {
    acting.groups.emplace_back(kSystemUnauthenticated);
  }
  return acting;
}

}  // namespace tenure::server
