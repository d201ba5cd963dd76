// Tests of Authenticator: the admin token, token file users, anonymous and unknown tokens.
#include "server/authenticator.h"

#include <gtest/gtest.h>

#include "server/certificates.h"

namespace tenure::server {
namespace {

HttpRequest WithAuthorization(std::string value) {
  HttpRequest request;
  request.method = "GET";
  request.path = "/api";
  request.target = "/api";
  if (!value.empty()) request.headers.emplace_back("authorization", std::move(value));
  return request;
}

class AuthenticatorTest : public ::testing::Test {
 protected:
  AuthenticatorTest() : authenticator_("admin-secret", Tokens()) {}
  static TokenFile Tokens() {
    TokenFile file;
    file.users["alice-token"] = {.name = "alice", .uid = "42", .groups = {"team-a"}};
    file.users["robot-token"] = {
        .name = "robot", .uid = "7", .groups = {std::string(kSystemAuthenticated)}};
    return file;
  }
  Authenticator authenticator_;
};

TEST_F(AuthenticatorTest, KnownTokensNameTheirUsers) {
  Authentication admin = authenticator_.Authenticate(WithAuthorization("Bearer admin-secret"));
  EXPECT_EQ(admin.outcome, Authentication::Outcome::kAuthenticated);
  EXPECT_EQ(admin.user, (UserInfo{.name = "tenure-admin",
                                  .groups = {"system:masters", "system:authenticated"}}));
  Authentication alice = authenticator_.Authenticate(WithAuthorization("bearer alice-token"));
  EXPECT_EQ(alice.outcome, Authentication::Outcome::kAuthenticated);
  EXPECT_EQ(alice.user,
            (UserInfo{.name = "alice", .uid = "42", .groups = {"team-a", "system:authenticated"}}));
  // system:authenticated is not added twice.
  EXPECT_EQ(authenticator_.Authenticate(WithAuthorization("Bearer robot-token")).user.groups,
            (std::vector<std::string>{"system:authenticated"}));
}

TEST_F(AuthenticatorTest, NoCredentialsIsAnonymousAndAnUnknownTokenUnauthorized) {
  for (const char* header : {"", "Basic YWxpY2U6cHc=", "Bearer  alice-token"}) {
    Authentication a = authenticator_.Authenticate(WithAuthorization(header));
    EXPECT_EQ(a.outcome, Authentication::Outcome::kAnonymous) << header;
    EXPECT_EQ(a.user, (UserInfo{.name = "system:anonymous", .groups = {"system:unauthenticated"}}));
  }
  for (const char* header : {"Bearer nope", "Bearer admin-secre", "Bearer admin-secretx"}) {
    EXPECT_EQ(authenticator_.Authenticate(WithAuthorization(header)).outcome,
              Authentication::Outcome::kUnauthorized)
        << header;
  }
}

HttpRequest WithCertificate(ClientCertificate certificate, std::string authorization = "") {
  HttpRequest request = WithAuthorization(std::move(authorization));
  request.client_certificate = std::make_shared<const ClientCertificate>(std::move(certificate));
  return request;
}

TEST_F(AuthenticatorTest, AVerifiedCertificateNamesItsUserAndGroups) {
  Authentication a = authenticator_.Authenticate(WithCertificate({.verified = true,
                                                                  .common_name = "carol",
                                                                  .organizations = {"g1", "g2"},
                                                                  .sha256_hex = "ab"}));
  ASSERT_EQ(a.outcome, Authentication::Outcome::kAuthenticated);
  EXPECT_EQ(a.user.name, "carol");
  EXPECT_EQ(a.user.groups, (std::vector<std::string>{"g1", "g2", "system:authenticated"}));
  EXPECT_EQ(a.user.extra.at("authentication.kubernetes.io/credential-id"),
            std::vector<std::string>{"X509SHA256=ab"});
  // The certificate comes first: a token alongside does not change who it is.
  a = authenticator_.Authenticate(
      WithCertificate({.verified = true, .common_name = "carol"}, "Bearer alice-token"));
  EXPECT_EQ(a.user.name, "carol");
}

TEST_F(AuthenticatorTest, ARefusedCertificateIsUnauthorizedUnlessATokenAuthenticates) {
  ClientCertificate refused{
      .verified = false, .error = "certificate has expired", .common_name = "mallory"};
  EXPECT_EQ(authenticator_.Authenticate(WithCertificate(refused)).outcome,
            Authentication::Outcome::kUnauthorized);
  Authentication a = authenticator_.Authenticate(WithCertificate(refused, "Bearer alice-token"));
  ASSERT_EQ(a.outcome, Authentication::Outcome::kAuthenticated);
  EXPECT_EQ(a.user.name, "alice");
  // No common name: the certificate says no one; the request is anonymous.
  EXPECT_EQ(authenticator_.Authenticate(WithCertificate({.verified = true})).outcome,
            Authentication::Outcome::kAnonymous);
}

}  // namespace
}  // namespace tenure::server
