// Tests of BearerTokenOf: kube-apiserver's reading of the Authorization header.
#include "server/bearer_token.h"

#include <gtest/gtest.h>

namespace tenure::server {
namespace {

TEST(BearerTokenTest, TheSchemeIsMatchedInAnyCase) {
  EXPECT_EQ(BearerTokenOf("Bearer abc"), "abc");
  EXPECT_EQ(BearerTokenOf("bearer abc"), "abc");
  EXPECT_EQ(BearerTokenOf("BEARER abc"), "abc");
  EXPECT_EQ(BearerTokenOf("bEaReR abc"), "abc");
}

TEST(BearerTokenTest, TheValueIsTrimmedAndAThirdPartIgnored) {
  EXPECT_EQ(BearerTokenOf("  Bearer abc \t"), "abc");
  EXPECT_EQ(BearerTokenOf("Bearer abc def"), "abc");
}

TEST(BearerTokenTest, NoTokenIsNoCredential) {
  EXPECT_EQ(BearerTokenOf(""), std::nullopt);
  EXPECT_EQ(BearerTokenOf("Bearer"), std::nullopt);
  EXPECT_EQ(BearerTokenOf("Bearer "), std::nullopt);
  EXPECT_EQ(BearerTokenOf("Bearer  abc"), std::nullopt);  // two spaces: kube ignores it
  EXPECT_EQ(BearerTokenOf("Basic YWxpY2U6cHc="), std::nullopt);
  EXPECT_EQ(BearerTokenOf("Bearerabc"), std::nullopt);
}

}  // namespace
}  // namespace tenure::server
