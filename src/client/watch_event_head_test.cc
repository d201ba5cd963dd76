// ReadWatchEventHead: type and object identity from watch event lines, stopping early.
#include "client/watch_event_head.h"

#include <gtest/gtest.h>

namespace tenure::client {
namespace {

TEST(WatchEventHeadTest, ALeaseEventsHeadIsReadWithoutTheRest) {
  WatchEventHead head;
  // The spec is not valid JSON: it is never reached, since the head is known before it.
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"MODIFIED","object":{"kind":"Lease","apiVersion":"coordination.k8s.io/v1",)"
      R"("metadata":{"name":"scale-7","namespace":"default","uid":"u","resourceVersion":"42",)"
      R"("managedFields":[{"manager":"m"}]},"spec":{not json)",
      head));
  EXPECT_EQ(head.type, "MODIFIED");
  EXPECT_EQ(head.namespace_, "default");
  EXPECT_EQ(head.name, "scale-7");
  EXPECT_EQ(head.resource_version, "42");
}

TEST(WatchEventHeadTest, NestedFieldsWithTheSameNamesAreNotTheObjectsIdentity) {
  WatchEventHead head;
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"object":{"spec":{"name":"spec-name","type":"x"},"metadata":{"labels":{"name":"l",)"
      R"("namespace":"l"},"managedFields":[{"name":"f","resourceVersion":"9"}],)"
      R"("name":"real","resourceVersion":"5"}},"type":"DELETED"})",
      head));
  EXPECT_EQ(head.type, "DELETED");  // after the object: read whole
  EXPECT_EQ(head.name, "real");
  EXPECT_EQ(head.namespace_, "");  // cluster-scoped
  EXPECT_EQ(head.resource_version, "5");
}

TEST(WatchEventHeadTest, AClusterScopedObjectsHeadEndsWithItsMetadata) {
  WatchEventHead head;
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"ADDED","object":{"metadata":{"name":"ns1","resourceVersion":"3"},"spec":[)",
      head));
  EXPECT_EQ(head.name, "ns1");
  EXPECT_EQ(head.resource_version, "3");
}

TEST(WatchEventHeadTest, BookmarksAndErrorsHaveAHeadToo) {
  WatchEventHead head;
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"BOOKMARK","object":{"kind":"Lease","metadata":{"resourceVersion":"77"}}})",
      head));
  EXPECT_EQ(head.type, "BOOKMARK");
  EXPECT_EQ(head.resource_version, "77");
  EXPECT_EQ(head.name, "");
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})", head));
  EXPECT_EQ(head.type, "ERROR");
}

TEST(WatchEventHeadTest, WhatIsNotAnEventObjectIsRefused) {
  WatchEventHead head;
  EXPECT_FALSE(ReadWatchEventHead("", head));
  EXPECT_FALSE(ReadWatchEventHead("not json", head));
  EXPECT_FALSE(ReadWatchEventHead("[1,2]", head));
  EXPECT_FALSE(ReadWatchEventHead("\"MODIFIED\"", head));
  EXPECT_FALSE(ReadWatchEventHead(R"({"type":"MODIFIED","object":{"metadata":{"name":)", head));
  EXPECT_FALSE(ReadWatchEventHead(R"({"type":"ADDED"} trailing)", head));
}

}  // namespace
}  // namespace tenure::client
