// Authenticator: who sent a request, from its bearer token, as kube-apiserver's token
// authenticators decide it: the data folder's admin token (user "tenure-admin" in
// system:masters, for bootstrap) and the users of a static token file. A request without a
// bearer token (or with another scheme) is anonymous; a token no one knows is Unauthorized
// ("invalid bearer token" in kube-apiserver, answered 401 "Unauthorized"). Every authenticated
// user gets the group system:authenticated. Immutable after construction: thread-safe.
#pragma once

#include <optional>
#include <string>

#include "server/http_server.h"
#include "server/token_file.h"
#include "server/user_info.h"

namespace tenure::server {

inline constexpr std::string_view kAdminUser = "tenure-admin";

struct Authentication {
  enum class Outcome { kAuthenticated, kAnonymous, kUnauthorized };
  Outcome outcome = Outcome::kAnonymous;
  UserInfo user;  // kAuthenticated: the user; kAnonymous: system:anonymous
};

class Authenticator {
 public:
  // `admin_token` empty: no admin token (every token must be in `tokens`).
  Authenticator(std::string admin_token, TokenFile tokens);

  Authentication Authenticate(const HttpRequest& request) const;

 private:
  std::string admin_token_;
  TokenFile tokens_;
};

}  // namespace tenure::server
