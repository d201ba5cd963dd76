// Authenticator: who sent a request, as kube-apiserver's authenticators decide it. First its
// client certificate, when the TLS handshake verified it against a client CA: the user is the
// subject's CN, the groups its O attributes (a certificate that does not verify is refused,
// unless a bearer token authenticates). Then its bearer token: the data folder's admin token (user
// "tenure-admin" in system:masters, for bootstrap), the users of a static token file, and
// ServiceAccount tokens the TokenRequest API issued (service_account_token.h). A request without a
// bearer token (or with another scheme) is anonymous; a token no one knows is Unauthorized
// ("invalid bearer token" in kube-apiserver, answered 401 "Unauthorized"). Every authenticated
// user gets the group system:authenticated. Immutable after construction: thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "server/http_server.h"
#include "server/service_account_token.h"
#include "server/token_file.h"
#include "server/user_info.h"
#include "tenure/clock.h"

namespace tenure::server {

inline constexpr std::string_view kAdminUser = "tenure-admin";

struct Authentication {
  enum class Outcome { kAuthenticated, kAnonymous, kUnauthorized };
  Outcome outcome = Outcome::kAnonymous;
  UserInfo user;  // kAuthenticated: the user; kAnonymous: system:anonymous
};

// How service-account tokens are checked: the signer, where an account's uid is looked up (none:
// the account does not exist) and the clock.
struct ServiceAccountAuthentication {
  std::shared_ptr<const ServiceAccountTokens> tokens;
  std::function<std::optional<std::string>(const std::string& namespace_, const std::string& name)>
      account_uid;
  std::shared_ptr<Clock> clock;
};

class Authenticator {
 public:
  // `admin_token` empty: no admin token (every token must be in `tokens`). Without
  // `service_accounts.tokens`, JWTs are unknown tokens like any other.
  Authenticator(std::string admin_token, TokenFile tokens,
                ServiceAccountAuthentication service_accounts = {});

  Authentication Authenticate(const HttpRequest& request) const;

 private:
  // The user of a ServiceAccount token (system:serviceaccount:<ns>:<name> in
  // system:serviceaccounts and system:serviceaccounts:<ns>), or nullopt when it is not valid:
  // bad signature, another issuer or audience, expired, or its account deleted or recreated.
  std::optional<UserInfo> ServiceAccountUser(std::string_view token) const;

  std::string admin_token_;
  TokenFile tokens_;
  ServiceAccountAuthentication service_accounts_;
};

}  // namespace tenure::server
