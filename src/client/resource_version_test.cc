// Tests of ParseResourceVersion, ResourceVersionOf and KnownOlder.
#include "client/resource_version.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tenure::client {
namespace {

using nlohmann::json;

TEST(ResourceVersionTest, ParsesDecimalIntegersOnly) {
  EXPECT_EQ(ParseResourceVersion("42"), 42u);
  EXPECT_EQ(ParseResourceVersion("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseResourceVersion(""));
  EXPECT_FALSE(ParseResourceVersion("-1"));
  EXPECT_FALSE(ParseResourceVersion("12a"));
  EXPECT_FALSE(ParseResourceVersion("18446744073709551616"));  // overflow
  EXPECT_FALSE(ParseResourceVersion("opaque-etag"));
}

TEST(ResourceVersionTest, ReadsTheObjectsMetadata) {
  EXPECT_EQ(ResourceVersionOf(json::parse(R"({"metadata":{"resourceVersion":"7"}})")), 7u);
  EXPECT_FALSE(ResourceVersionOf(json::parse(R"({"metadata":{"resourceVersion":7}})")));
  EXPECT_FALSE(ResourceVersionOf(json::parse(R"({"metadata":"x"})")));
  EXPECT_FALSE(ResourceVersionOf(json::parse(R"({})")));
  EXPECT_FALSE(ResourceVersionOf(json::parse(R"([1])")));
}

TEST(ResourceVersionTest, OlderOnlyWhenBothAreKnown) {
  EXPECT_TRUE(KnownOlder(3, 4));
  EXPECT_FALSE(KnownOlder(4, 4));
  EXPECT_FALSE(KnownOlder(5, 4));
  EXPECT_FALSE(KnownOlder(std::nullopt, 4));
  EXPECT_FALSE(KnownOlder(3, std::nullopt));
}

}  // namespace
}  // namespace tenure::client
