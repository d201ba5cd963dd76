// Authenticator: the admin token and the static token file's users, from the bearer token.
#include "server/authenticator.h"

#include "server/bearer_token.h"

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

Authenticator::Authenticator(std::string admin_token, TokenFile tokens)
    : admin_token_(std::move(admin_token)), tokens_(std::move(tokens)) {}

Authentication Authenticator::Authenticate(const HttpRequest& request) const {
  std::optional<std::string> token = BearerTokenOf(request.header("authorization"));
  if (!token) return {Authentication::Outcome::kAnonymous, AnonymousUser()};
  UserInfo user;
  if (!admin_token_.empty() && ConstantTimeEquals(*token, admin_token_)) {
    user = {.name = std::string(kAdminUser), .groups = {std::string(kSystemMasters)}};
  } else if (auto it = tokens_.users.find(*token); it != tokens_.users.end()) {
    user = it->second;
  } else {
    return {Authentication::Outcome::kUnauthorized, {}};
  }
  AddAuthenticatedGroup(user);
  return {Authentication::Outcome::kAuthenticated, std::move(user)};
}

}  // namespace tenure::server
