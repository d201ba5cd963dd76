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
  const size_t frame = std::string("299 - \"\"").size();
  std::vector<std::string> texts;
  for (int i = 0; i < 20; ++i) texts.push_back(std::to_string(i) + std::string(300, 'x'));
  auto headers = WarningHeaders(texts);
  // 20 headers of ~310 bytes exceed 4096: each text is cut to 256, and headers are added while
  // less than 4096 bytes came before: 15 * 264 = 3960 < 4096, so a 16th, then none.
  ASSERT_EQ(headers.size(), 16u);
  for (const auto& [name, value] : headers) EXPECT_EQ(value.size(), frame + 256);
  // Under the limit nothing is cut or left out.
  auto whole = WarningHeaders({std::string(1000, 'y'), std::string(3000, 'z')});
  ASSERT_EQ(whole.size(), 2u);
  EXPECT_EQ(whole[1].second.size(), frame + 3000);
}

}  // namespace
}  // namespace tenure::server
