// UserInfo: who sent a request, as kube-apiserver's authenticators name them (user.Info): a user
// name, a uid and groups. The well-known names are kube-apiserver's.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tenure::server {

inline constexpr std::string_view kSystemMasters = "system:masters";
inline constexpr std::string_view kSystemAuthenticated = "system:authenticated";
inline constexpr std::string_view kSystemUnauthenticated = "system:unauthenticated";
inline constexpr std::string_view kSystemAnonymous = "system:anonymous";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  // Extra attributes by key (impersonation's Impersonate-Extra-<key>); RBAC reads none.
  std::map<std::string, std::vector<std::string>> extra;
  bool operator==(const UserInfo&) const = default;
};

// What kube-apiserver adds to every authenticated user: the group system:authenticated, unless
// the user is system:anonymous or already in system:authenticated or system:unauthenticated.
void AddAuthenticatedGroup(UserInfo& user);

// The user of a request without credentials: system:anonymous in system:unauthenticated.
UserInfo AnonymousUser();

}  // namespace tenure::server
