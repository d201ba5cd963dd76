// Authenticator: the admin token and the static token file's users, from the bearer token.
#include "server/authenticator.h"

#include "server/bearer_token.h"
#include "server/certificates.h"

namespace tenure::server {
namespace {

// Compares in time independent of where the strings differ: the admin token is the key to
// everything, and a timing difference would tell an attacker how much of a guess was right.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

Authenticator::Authenticator(std::string admin_token, TokenFile tokens,
                             ServiceAccountAuthentication service_accounts)
    : admin_token_(std::move(admin_token)),
      tokens_(std::move(tokens)),
      service_accounts_(std::move(service_accounts)) {}

std::optional<UserInfo> Authenticator::ServiceAccountUser(std::string_view token, bool may_wait,
                                                          bool* undecided) const {
  const auto& sa = service_accounts_;
  if (!sa.tokens || !ServiceAccountTokens::LooksLikeJwt(token)) return std::nullopt;
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(sa.clock->wall_now().time_since_epoch())
          .count();
  auto claims = sa.tokens->Verify(token, now);
  if (!claims.ok()) return std::nullopt;
  // A token outlives its account only until the account goes: deleted, or deleted and created
  // again under the same name (a new uid), it is refused.
  AccountLookup account = sa.account_uid(claims->namespace_, claims->name, may_wait);
  if (!account.decided) {
    *undecided = true;
    return std::nullopt;
  }
  const std::optional<std::string>& uid = account.uid;
  if (!uid || *uid != claims->uid) return std::nullopt;
  UserInfo user{
      .name = "system:serviceaccount:" + claims->namespace_ + ":" + claims->name,
      .uid = *uid,
      .groups = {"system:serviceaccounts", "system:serviceaccounts:" + claims->namespace_}};
  if (!claims->id.empty()) {
    user.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + claims->id};
  }
  return user;
}

Authentication Authenticator::Authenticate(const HttpRequest& request, bool may_wait) const {
  // kube's union: the client certificate first, then the bearer token; an error counts only when
  // nothing succeeds.
  bool certificate_refused = false;
  if (const auto& certificate = request.client_certificate) {
    if (!certificate->verified) {
      certificate_refused = true;
    } else if (!certificate->common_name.empty()) {
      UserInfo user{.name = certificate->common_name, .groups = certificate->organizations};
      user.extra["authentication.kubernetes.io/credential-id"] = {"X509SHA256=" +
                                                                  certificate->sha256_hex};
      AddAuthenticatedGroup(user);
      return {Authentication::Outcome::kAuthenticated, std::move(user)};
    }
  }
  std::optional<std::string> token = BearerTokenOf(request.header("authorization"));
  if (!token) {
    if (certificate_refused) return {Authentication::Outcome::kUnauthorized, {}};
    return {Authentication::Outcome::kAnonymous, AnonymousUser()};
  }
  UserInfo user;
  bool undecided = false;
  if (!admin_token_.empty() && ConstantTimeEquals(*token, admin_token_)) {
    user = {.name = std::string(kAdminUser), .groups = {std::string(kSystemMasters)}};
  } else if (auto it = tokens_.users.find(*token); it != tokens_.users.end()) {
    user = it->second;
  } else if (auto account = ServiceAccountUser(*token, may_wait, &undecided)) {
    user = std::move(*account);
  } else {
    return {
        undecided ? Authentication::Outcome::kUndecided : Authentication::Outcome::kUnauthorized,
        {}};
  }
  AddAuthenticatedGroup(user);
  return {Authentication::Outcome::kAuthenticated, std::move(user)};
}

}  // namespace tenure::server
