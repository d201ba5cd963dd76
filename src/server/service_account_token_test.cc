// Tests of ServiceAccountTokens: what a signed token holds, and every reason a token is refused.
#include "server/service_account_token.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "server/credentials.h"

namespace tenure::server {
namespace {

namespace fs = std::filesystem;

class ServiceAccountTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tenure-sa-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    auto credentials = EnsureCredentials(dir_.string());
    ASSERT_TRUE(credentials.ok()) << credentials.status().ToString();
    auto tokens = ServiceAccountTokens::Open(credentials->service_account_key_file, "issuer");
    ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
    tokens_ = *tokens;
  }
  void TearDown() override { fs::remove_all(dir_); }

  ServiceAccountClaims Claims() const {
    return {.namespace_ = "apps",
            .name = "runner",
            .uid = "u-1",
            .audiences = {"issuer"},
            .issued_at = 1000,
            .expires = 4600,
            .id = "jti-1"};
  }

  fs::path dir_;
  std::shared_ptr<ServiceAccountTokens> tokens_;
};

// The payload of a token as JSON.
nlohmann::json Payload(const std::string& token) {
  size_t a = token.find('.'), b = token.find('.', a + 1);
  std::string part = token.substr(a + 1, b - a - 1);
  std::string text;
  int bits = 0;
  uint32_t acc = 0;
  for (char c : part) {
    int v = std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_").find(c);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      text += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return nlohmann::json::parse(text);
}

TEST_F(ServiceAccountTokenTest, ASignedTokenCarriesKubesClaimsAndVerifies) {
  std::string token = tokens_->Sign(Claims());
  EXPECT_TRUE(ServiceAccountTokens::LooksLikeJwt(token));
  nlohmann::json payload = Payload(token);
  EXPECT_EQ(payload["iss"], "issuer");
  EXPECT_EQ(payload["sub"], "system:serviceaccount:apps:runner");
  EXPECT_EQ(payload["aud"], nlohmann::json::array({"issuer"}));
  EXPECT_EQ(payload["exp"], 4600);
  EXPECT_EQ(payload["nbf"], 1000);
  EXPECT_EQ(payload["kubernetes.io"]["serviceaccount"]["uid"], "u-1");
  auto claims = tokens_->Verify(token, 2000);
  ASSERT_TRUE(claims.ok()) << claims.status().ToString();
  EXPECT_EQ(claims->namespace_, "apps");
  EXPECT_EQ(claims->name, "runner");
  EXPECT_EQ(claims->uid, "u-1");
  EXPECT_EQ(claims->id, "jti-1");
}

TEST_F(ServiceAccountTokenTest, ExpiredFutureAndForeignTokensAreRefused) {
  std::string token = tokens_->Sign(Claims());
  EXPECT_EQ(tokens_->Verify(token, 4600 + 61).status().message(),
            "service account token has expired");
  EXPECT_TRUE(tokens_->Verify(token, 4600 + 60).ok());  // a minute of skew
  EXPECT_EQ(tokens_->Verify(token, 1000 - 61).status().message(),
            "service account token is not valid yet");
  ServiceAccountClaims other = Claims();
  other.audiences = {"someone-else"};
  EXPECT_EQ(tokens_->Verify(tokens_->Sign(other), 2000).status().message(),
            "token audiences [\"someone-else\"] is invalid for the target audiences [\"issuer\"]");
  // Another server's key: the same claims, another signature.
  auto foreign_credentials = EnsureCredentials((dir_ / "other").string());
  ASSERT_TRUE(foreign_credentials.ok());
  auto foreign =
      ServiceAccountTokens::Open(foreign_credentials->service_account_key_file, "issuer");
  ASSERT_TRUE(foreign.ok());
  EXPECT_EQ(tokens_->Verify((*foreign)->Sign(Claims()), 2000).status().message(),
            "invalid signature");
}

TEST_F(ServiceAccountTokenTest, TamperedAndMalformedTokensAreRefused) {
  std::string token = tokens_->Sign(Claims());
  // Another payload under the same signature.
  ServiceAccountClaims admin = Claims();
  admin.name = "admin";
  std::string forged = tokens_->Sign(admin);
  size_t a = token.find('.'), b = token.find('.', a + 1);
  size_t fa = forged.find('.'), fb = forged.find('.', fa + 1);
  std::string spliced =
      token.substr(0, a + 1) + forged.substr(fa + 1, fb - fa - 1) + token.substr(b);
  EXPECT_EQ(tokens_->Verify(spliced, 2000).status().message(), "invalid signature");
  // A header or claims of the wrong JSON types: refused, never thrown.
  const std::string odd_header = "eyJhbGciOjF9";              // {"alg":1}
  const std::string odd_claims = "eyJraWQiOltdLCJpc3MiOjV9";  // {"kid":[],"iss":5}
  for (const std::string& bad :
       {std::string("a.b.c"), std::string(".."), std::string("x"), std::string("eyJ.eyJ.!!"),
        odd_header + "." + odd_claims + "." + std::string(86, 'A'),
        token.substr(0, token.find('.')) + "." + odd_claims + token.substr(token.rfind('.'))}) {
    auto result = tokens_->Verify(bad, 2000);
    EXPECT_FALSE(result.ok()) << bad;
    EXPECT_EQ(result.status().reason(), Reason::kUnauthorized) << bad;
  }
}

}  // namespace
}  // namespace tenure::server
