// Tests of api::ParseResourceVersion.
#include "api/resource_version.h"

#include <gtest/gtest.h>

namespace tenure::api {
namespace {

TEST(ResourceVersionParseTest, DecimalDigitsOnly) {
  EXPECT_EQ(ParseResourceVersion("0"), 0u);
  EXPECT_EQ(ParseResourceVersion("42"), 42u);
  EXPECT_EQ(ParseResourceVersion("0007"), 7u);
  EXPECT_EQ(ParseResourceVersion("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "12a", "0x10", "1.5", "abc",
                          "18446744073709551616", "99999999999999999999999"}) {
    EXPECT_FALSE(ParseResourceVersion(bad)) << bad;
  }
}

}  // namespace
}  // namespace tenure::api
