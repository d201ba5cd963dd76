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
  // kUndecided: a ServiceAccount token whose account is not at hand, and the caller did not let
  // the lookup wait for the cache (Authenticate again with may_wait, where a thread may block).
  enum class Outcome { kAuthenticated, kAnonymous, kUnauthorized, kUndecided };
  Outcome outcome = Outcome::kAnonymous;
  UserInfo user;  // kAuthenticated: the user; kAnonymous: system:anonymous
};

// An account's uid as a lookup found it: `decided` false when the account was not at hand and the
// lookup was not allowed to wait (for a cache to catch up with the store); else `uid`, none when
// the account does not exist.
struct AccountLookup {
  bool decided = true;
  std::optional<std::string> uid;
};

// How service-account tokens are checked: the signer, where an account's uid is looked up, and
// the clock.
struct ServiceAccountAuthentication {
  std::shared_ptr<const ServiceAccountTokens> tokens;
  std::function<AccountLookup(const std::string& namespace_, const std::string& name,
                              bool may_wait)>
      account_uid;
  std::shared_ptr<Clock> clock;
};

class Authenticator {
 public:
  // `admin_token` empty: no admin token (every token must be in `tokens`). Without
  // `service_accounts.tokens`, JWTs are unknown tokens like any other.
  Authenticator(std::string admin_token, TokenFile tokens,
                ServiceAccountAuthentication service_accounts = {});

  // `may_wait` false: never waits for the store (a connection's thread); a ServiceAccount token
  // whose account is not at hand is then kUndecided.
  Authentication Authenticate(const HttpRequest& request, bool may_wait = true) const;

 private:
  // The user of a ServiceAccount token (system:serviceaccount:<ns>:<name> in
  // system:serviceaccounts and system:serviceaccounts:<ns>), or nullopt when it is not valid:
  // bad signature, another issuer or audience, expired, or its account deleted or recreated;
  // `*undecided` set when its account was not at hand and `may_wait` was false.
  std::optional<UserInfo> ServiceAccountUser(std::string_view token, bool may_wait,
                                             bool* undecided) const;

  std::string admin_token_;
  TokenFile tokens_;
  ServiceAccountAuthentication service_accounts_;
};

}  // namespace tenure::server
