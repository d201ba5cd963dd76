// ReadObjectHead and ReadWatchEventHead: identity and labels from JSON text, stopping early.
#include "api/object_head.h"

#include <gtest/gtest.h>

namespace tenure::api {
namespace {

TEST(WatchEventHeadTest, ALeaseEventsHeadIsReadWithoutTheRest) {
  std::string type;
  ObjectHead head;
  // The spec is not valid JSON: it is never reached, since the head is known before it.
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"MODIFIED","object":{"kind":"Lease","apiVersion":"coordination.k8s.io/v1",)"
      R"("metadata":{"name":"scale-7","namespace":"default","uid":"u","resourceVersion":"42",)"
      R"("managedFields":[{"manager":"m"}]},"spec":{not json)",
      type, head));
  EXPECT_EQ(type, "MODIFIED");
  EXPECT_EQ(head.namespace_, "default");
  EXPECT_EQ(head.name, "scale-7");
  EXPECT_EQ(head.resource_version, "42");
}

TEST(WatchEventHeadTest, NestedFieldsWithTheSameNamesAreNotTheObjectsIdentity) {
  std::string type;
  ObjectHead head;
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"object":{"spec":{"name":"spec-name","type":"x"},"metadata":{"labels":{"name":"l",)"
      R"("namespace":"l"},"managedFields":[{"name":"f","resourceVersion":"9"}],)"
      R"("name":"real","resourceVersion":"5"}},"type":"DELETED"})",
      type, head));
  EXPECT_EQ(type, "DELETED");  // after the object: read whole
  EXPECT_EQ(head.name, "real");
  EXPECT_EQ(head.namespace_, "");  // cluster-scoped
  EXPECT_EQ(head.resource_version, "5");
  EXPECT_TRUE(head.labels.empty());  // an event's head has no labels
}

TEST(WatchEventHeadTest, AClusterScopedObjectsHeadEndsWithItsMetadata) {
  std::string type;
  ObjectHead head;
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"ADDED","object":{"metadata":{"name":"ns1","resourceVersion":"3"},"spec":[)", type,
      head));
  EXPECT_EQ(head.name, "ns1");
  EXPECT_EQ(head.resource_version, "3");
}

TEST(WatchEventHeadTest, BookmarksAndErrorsHaveAHeadToo) {
  std::string type;
  ObjectHead head;
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"BOOKMARK","object":{"kind":"Lease","metadata":{"resourceVersion":"77"}}})", type,
      head));
  EXPECT_EQ(type, "BOOKMARK");
  EXPECT_EQ(head.resource_version, "77");
  EXPECT_EQ(head.name, "");
  ASSERT_TRUE(ReadWatchEventHead(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})", type, head));
  EXPECT_EQ(type, "ERROR");
}

TEST(WatchEventHeadTest, WhatIsNotAnEventObjectIsRefused) {
  std::string type;
  ObjectHead head;
  EXPECT_FALSE(ReadWatchEventHead("", type, head));
  EXPECT_FALSE(ReadWatchEventHead("not json", type, head));
  EXPECT_FALSE(ReadWatchEventHead("[1,2]", type, head));
  EXPECT_FALSE(ReadWatchEventHead("\"MODIFIED\"", type, head));
  EXPECT_FALSE(
      ReadWatchEventHead(R"({"type":"MODIFIED","object":{"metadata":{"name":)", type, head));
  EXPECT_FALSE(ReadWatchEventHead(R"({"type":"ADDED"} trailing)", type, head));
}

TEST(ObjectHeadTest, AStoredObjectsIdentityAndLabelsAreReadWithoutItsSpec) {
  ObjectHead head;
  // The spec is not valid JSON: the pass ends with the metadata.
  ASSERT_TRUE(ReadObjectHead(
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"annotations":)"
      R"({"a":"1"},"labels":{"app":"web","tier":"front","n":7},"managedFields":[{"manager":)"
      R"("m","fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}}}}],"name":"x","namespace":"ns",)"
      R"("ownerReferences":[{"name":"owner","kind":"K"}],"resourceVersion":"12"},"spec":{oops)",
      head, /*with_labels=*/true));
  EXPECT_EQ(head.name, "x");
  EXPECT_EQ(head.namespace_, "ns");
  EXPECT_EQ(head.resource_version, "12");
  // Only string values are labels (kube's are strings; the full parse skipped others too).
  EXPECT_EQ(head.labels, (std::map<std::string, std::string>{{"app", "web"}, {"tier", "front"}}));
}

TEST(ObjectHeadTest, LabelsAreLeftOutUnlessAskedFor) {
  ObjectHead head;
  ASSERT_TRUE(ReadObjectHead(R"({"metadata":{"labels":{"app":"web"},"name":"x"}})", head, false));
  EXPECT_EQ(head.name, "x");
  EXPECT_TRUE(head.labels.empty());
}

TEST(ObjectHeadTest, MetadataAfterTheSpecIsStillFoundAndNestedNamesAreNotIt) {
  ObjectHead head;
  ASSERT_TRUE(ReadObjectHead(
      R"({"spec":{"metadata":{"name":"inner","labels":{"x":"y"}},"name":"s"},)"
      R"("status":{"labels":{"app":"no"}},"metadata":{"name":"outer","labels":{"app":"yes"}}})",
      head, true));
  EXPECT_EQ(head.name, "outer");
  EXPECT_EQ(head.namespace_, "");
  EXPECT_EQ(head.labels, (std::map<std::string, std::string>{{"app", "yes"}}));
}

TEST(ObjectHeadTest, AnObjectWithoutMetadataHasAnEmptyHeadAndWhatIsNoObjectIsRefused) {
  ObjectHead head;
  ASSERT_TRUE(ReadObjectHead(R"({"kind":"Thing","spec":{}})", head, true));
  EXPECT_EQ(head.name, "");
  EXPECT_TRUE(head.labels.empty());
  EXPECT_FALSE(ReadObjectHead("", head, true));
  EXPECT_FALSE(ReadObjectHead("[]", head, true));
  EXPECT_FALSE(ReadObjectHead("42", head, true));
  EXPECT_FALSE(ReadObjectHead(R"({"metadata":{"name":"x")", head, true));
}

}  // namespace
}  // namespace tenure::api
