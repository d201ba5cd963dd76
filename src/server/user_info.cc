// AddAuthenticatedGroup and AnonymousUser: kube-apiserver's groups of authenticated and
// anonymous requests.
#include "server/user_info.h"

#include <algorithm>

namespace tenure::server {

void AddAuthenticatedGroup(UserInfo& user) {
  if (user.name == kSystemAnonymous) return;
  const auto& groups = user.groups;
  if (std::find(groups.begin(), groups.end(), kSystemAuthenticated) != groups.end() ||
      std::find(groups.begin(), groups.end(), kSystemUnauthenticated) != groups.end()) {
    return;
  }
  user.groups.emplace_back(kSystemAuthenticated);
}

UserInfo AnonymousUser() {
  return {.name = std::string(kSystemAnonymous), .groups = {std::string(kSystemUnauthenticated)}};
}

}  // namespace tenure::server
