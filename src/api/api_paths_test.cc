// Tests of GroupVersionPath, CollectionPath, ObjectPath, their templates and WithQuery.
#include "api/api_paths.h"

#include <gtest/gtest.h>

namespace tenure::api {
namespace {

TEST(ApiPathsTest, GroupVersions) {
  EXPECT_EQ(GroupVersionPath(LeaseKind(), "v1"), "/apis/coordination.k8s.io/v1");
  EXPECT_EQ(GroupVersionPath(LeaseCandidateKind(), "v1beta1"), "/apis/coordination.k8s.io/v1beta1");
  EXPECT_EQ(GroupVersionPath(EventKind(), "v1"), "/api/v1");
}

TEST(ApiPathsTest, CollectionsInOneOrEveryNamespace) {
  EXPECT_EQ(CollectionPath(LeaseKind(), "v1", "kube-system"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
  EXPECT_EQ(CollectionPath(LeaseKind(), "v1", ""), "/apis/coordination.k8s.io/v1/leases");
  EXPECT_EQ(CollectionPath(LeaseCandidateKind(), "v1alpha2", "default"),
            "/apis/coordination.k8s.io/v1alpha2/namespaces/default/leasecandidates");
  EXPECT_EQ(CollectionPath(ConfigMapKind(), "v1", "default"),
            "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(CollectionPath(EventKind(), "v1", "demo"), "/api/v1/namespaces/demo/events");
  // A cluster-scoped kind has no namespace segment.
  EXPECT_EQ(CollectionPath(NamespaceKind(), "v1", ""), "/api/v1/namespaces");
  EXPECT_EQ(CollectionPath(NamespaceKind(), "v1", "ignored"), "/api/v1/namespaces");
}

TEST(ApiPathsTest, Objects) {
  EXPECT_EQ(ObjectPath(LeaseKind(), "v1", "default", "leader"),
            "/apis/coordination.k8s.io/v1/namespaces/default/leases/leader");
  EXPECT_EQ(ObjectPath(NamespaceKind(), "v1", "", "demo"), "/api/v1/namespaces/demo");
  // A kind outside the registry (what `tenure run` reads of its pod).
  const KindInfo pods{.group = "", .versions = {"v1"}, .kind = "Pod", .resource = "pods"};
  EXPECT_EQ(ObjectPath(pods, "v1", "default", "web-0"), "/api/v1/namespaces/default/pods/web-0");
}

TEST(ApiPathsTest, EverySegmentIsEncoded) {
  // A name or namespace cannot end the path, start a query or name another object.
  EXPECT_EQ(ObjectPath(LeaseKind(), "v1", "a/b", "x?watch=true#y z"),
            "/apis/coordination.k8s.io/v1/namespaces/a%2Fb/leases/x%3Fwatch%3Dtrue%23y%20z");
  EXPECT_EQ(ObjectPath(ConfigMapKind(), "v1", "default", ".."),
            "/api/v1/namespaces/default/configmaps/..");
  EXPECT_EQ(GroupVersionPath(LeaseKind(), "v1/../x"), "/apis/coordination.k8s.io/v1%2F..%2Fx");
}

TEST(ApiPathsTest, GroupVersionsOfAGroupByName) {
  EXPECT_EQ(GroupVersionPath("coordination.k8s.io", "v1beta1"),
            "/apis/coordination.k8s.io/v1beta1");
  EXPECT_EQ(GroupVersionPath("", "v1"), "/api/v1");
  EXPECT_EQ(GroupVersionPath("a/b", "v1"), "/apis/a%2Fb/v1");
}

TEST(ApiPathsTest, OpenApiPathTemplates) {
  EXPECT_EQ(CollectionPathTemplate(LeaseKind(), "v1"),
            "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases");
  EXPECT_EQ(ObjectPathTemplate(LeaseKind(), "v1"),
            "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}");
  EXPECT_EQ(ObjectPathTemplate(ConfigMapKind(), "v1"),
            "/api/v1/namespaces/{namespace}/configmaps/{name}");
  // A cluster-scoped kind has no namespace segment.
  EXPECT_EQ(CollectionPathTemplate(NamespaceKind(), "v1"), "/api/v1/namespaces");
  EXPECT_EQ(ObjectPathTemplate(NamespaceKind(), "v1"), "/api/v1/namespaces/{name}");
}

TEST(ApiPathsTest, QueryStrings) {
  EXPECT_EQ(WithQuery("/api/v1/events", {}), "/api/v1/events");
  EXPECT_EQ(WithQuery("/api/v1/events", {{"fieldSelector", "involvedObject.name=a b,x=y&z"}}),
            "/api/v1/events?fieldSelector=involvedObject.name%3Da%20b%2Cx%3Dy%26z");
  EXPECT_EQ(WithQuery("/p", {{"watch", "true"}, {"resourceVersion", "12"}}),
            "/p?watch=true&resourceVersion=12");
  EXPECT_EQ(WithQuery("/p?watch=true", {{"timeout", "250ms"}}), "/p?watch=true&timeout=250ms");
}

}  // namespace
}  // namespace tenure::api
