// Tests of StoredMetadata and WithResourceVersion on stored object text.
#include "server/object_text.h"

#include <gtest/gtest.h>

namespace tenure::server {
namespace {

TEST(StoredMetadataTest, FindsTheTopLevelMetadataObject) {
  EXPECT_EQ(
      StoredMetadata(
          R"({"apiVersion":"v1","kind":"Lease","metadata":{"name":"a","labels":{"x":"}{"}},"spec":{}})"),
      R"({"name":"a","labels":{"x":"}{"}})");
}

TEST(StoredMetadataTest, SkipsEscapedQuotesAndBrackets) {
  EXPECT_EQ(StoredMetadata(R"({"metadata":{"annotations":{"a":"\"}]\\"},"f":["{"]},"spec":{}})"),
            R"({"annotations":{"a":"\"}]\\"},"f":["{"]})");
}

TEST(StoredMetadataTest, EmptyWhenAbsentOrTruncated) {
  EXPECT_EQ(StoredMetadata(R"({"kind":"Lease"})"), "");
  EXPECT_EQ(StoredMetadata(R"({"metadata":{"name":"a")"), "");
  EXPECT_EQ(StoredMetadata(R"({"metadata":"x"})"), "");
}

TEST(WithResourceVersionTest, SplicesTheRevisionFirstInMetadata) {
  EXPECT_EQ(WithResourceVersion(R"({"metadata":{"name":"a"}})", 7),
            R"({"metadata":{"resourceVersion":"7","name":"a"}})");
  EXPECT_EQ(WithResourceVersion(R"({"metadata":{}})", 7),
            R"({"metadata":{"resourceVersion":"7"}})");
  // Revision 0: never stored (a dry-run create), no resourceVersion.
  EXPECT_EQ(WithResourceVersion(R"({"metadata":{"name":"a"}})", 0), R"({"metadata":{"name":"a"}})");
}

}  // namespace
}  // namespace tenure::server
