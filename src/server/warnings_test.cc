// Tests of the Warning headers: unknown-field texts, kube's header form, repeats and limits.
#include "server/warnings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tenure::server {
namespace {

TEST(WarningsTest, UnknownFieldsInOrderEachOnce) {
  EXPECT_EQ(UnknownFieldWarnings({"spec.foo", "bar", "spec.foo"}),
            (std::vector<std::string>{"unknown field \"spec.foo\"", "unknown field \"bar\""}));
}

TEST(WarningsTest, HeaderFormEscapesQuotesAndBackslashesOnly) {
  auto headers = WarningHeaders({"unknown field \"a\\b\"", "plain", "plain"});
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0].first, "Warning");
  EXPECT_EQ(headers[0].second, R"(299 - "unknown field \"a\\b\"")");
  EXPECT_EQ(headers[1].second, R"(299 - "plain")");
}

TEST(WarningsTest, PastTheTotalLimitEachIsCutAndTheRestLeftOut) {
  std::vector<std::string> texts;
  for (int i = 0; i < 20; ++i) texts.push_back(std::to_string(i) + std::string(300, 'x'));
  auto headers = WarningHeaders(texts);
  // 20 texts of ~300 characters exceed 4096: each is cut to 256, 16 of them fit.
  ASSERT_EQ(headers.size(), 16u);
  for (const auto& [name, value] : headers) {
    EXPECT_EQ(value.size(), std::string("299 - \"\"").size() + 256);
  }
  // Under the limit nothing is cut.
  auto whole = WarningHeaders({std::string(1000, 'y')});
  EXPECT_EQ(whole[0].second.size(), std::string("299 - \"\"").size() + 1000);
}

}  // namespace
}  // namespace tenure::server
