// Tests of Canonicalize and kind lookups: times, type errors, unknown fields, TypeMeta, nulls.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/kinds.h"

namespace tenure::api {
namespace {

using nlohmann::json;

const KindInfo& K(std::string_view resource) {
  for (const KindInfo* k : AllKinds()) {
    if (k->resource == resource) return *k;
  }
  std::abort();
}

Result<json> Canon(std::string_view resource, const std::string& text, bool strict = false) {
  return Canonicalize(K(resource), json::parse(text), DecodeOptions{strict});
}

TEST(KindsTest, Lookups) {
  ASSERT_EQ(AllKinds().size(), 16u);
  const KindInfo* lease = FindByResource("coordination.k8s.io", "leases");
  ASSERT_NE(lease, nullptr);
  EXPECT_EQ(lease->qualified_kind(), "Lease.coordination.k8s.io");
  EXPECT_EQ(lease->qualified_resource(), "leases.coordination.k8s.io");
  EXPECT_EQ(lease->api_version("v1"), "coordination.k8s.io/v1");
  const KindInfo* cm = FindByKind("", "ConfigMap");
  ASSERT_NE(cm, nullptr);
  EXPECT_EQ(cm->qualified_kind(), "ConfigMap");
  EXPECT_EQ(cm->qualified_resource(), "configmaps");
  EXPECT_EQ(cm->api_version("v1"), "v1");
  EXPECT_EQ(cm->short_names, std::vector<std::string_view>{"cm"});
  const KindInfo* lc = FindByKind("coordination.k8s.io", "LeaseCandidate");
  ASSERT_NE(lc, nullptr);
  EXPECT_EQ(lc->versions, (std::vector<std::string_view>{"v1beta1", "v1alpha2"}));
  EXPECT_FALSE(lc->allow_unconditional_update);
  EXPECT_TRUE(lc->allow_create_on_update);
  EXPECT_FALSE(FindByResource("", "namespaces")->namespaced);
  EXPECT_EQ(FindByResource("", "events")->short_names, std::vector<std::string_view>{"ev"});
  EXPECT_EQ(FindByResource("", "leases"), nullptr);
  EXPECT_EQ(FindByKind("coordination.k8s.io", "ConfigMap"), nullptr);
}

TEST(CanonicalizeTest, LeaseRoundTripNormalizesTimes) {
  auto r = Canon("leases", R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "x", "namespace": "default", "managedFields": [{"manager": "k"}],
                 "creationTimestamp": "2024-01-01T00:00:00.123Z", "labels": {}},
    "spec": {"holderIdentity": "", "leaseDurationSeconds": 15,
             "renewTime": "2023-12-05T02:33:08.685Z", "acquireTime": null,
             "leaseTransitions": 0}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, json::parse(R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "x", "namespace": "default", "managedFields": [{"manager": "k"}],
                 "creationTimestamp": "2024-01-01T00:00:00Z"},
    "spec": {"holderIdentity": "", "leaseDurationSeconds": 15,
             "renewTime": "2023-12-05T02:33:08.685000Z", "leaseTransitions": 0}})"));
  // Canonical output is a fixed point.
  auto again = Canonicalize(K("leases"), *r, DecodeOptions{true});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *r);
}

TEST(CanonicalizeTest, FillsTypeMetaAndEmptySpec) {
  auto r = Canon("leases", R"({"metadata": {"name": "x"}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, json::parse(R"({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                "metadata": {"name": "x"}, "spec": {}})"));
  auto lc = Canon("leasecandidates", R"({"apiVersion": "coordination.k8s.io/v1alpha2"})");
  ASSERT_TRUE(lc.ok());
  EXPECT_EQ((*lc)["apiVersion"], "coordination.k8s.io/v1alpha2");
  EXPECT_EQ((*lc)["spec"], json::parse(R"({"leaseName": "", "binaryVersion": "",
                                           "strategy": ""})"));
}

TEST(CanonicalizeTest, IntegerGivenAsStringIsBadRequest) {
  auto r = Canon("leases", R"({"spec": {"leaseDurationSeconds": "15"}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(r.status().message(),
            "Lease in version \"v1\" cannot be handled as a Lease: json: cannot unmarshal string "
            "into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32");
}

TEST(CanonicalizeTest, FractionAndOverflowAreBadRequest) {
  auto r = Canon("leases", R"({"spec": {"leaseDurationSeconds": 1.5}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Lease in version \"v1\" cannot be handled as a Lease: json: cannot unmarshal number "
            "1.5 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32");
  r = Canon("leases", R"({"spec": {"leaseTransitions": 3000000000}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot unmarshal number 3000000000 into Go struct field "
                                      "LeaseSpec.spec.leaseTransitions of type int32"),
            std::string::npos);
  r = Canon("leases", R"({"metadata": {"generation": 3000000000}})");
  EXPECT_TRUE(r.ok());
}

TEST(CanonicalizeTest, OtherTypeErrors) {
  auto r = Canon("leases", R"({"metadata": {"name": 5}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of "
                "type string"),
            std::string::npos);
  r = Canon("leases", R"({"spec": "x"})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot unmarshal string into Go struct field "
                                      "Lease.spec of type v1.LeaseSpec"),
            std::string::npos);
  r = Canon("configmaps", R"({"data": {"a": 1}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot "
            "unmarshal number into Go struct field ConfigMap.data of type string");
  r = Canon("configmaps", R"({"metadata": {"ownerReferences": [{"name": true}]}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot unmarshal bool into Go struct field "
                                      "OwnerReference.metadata.ownerReferences.name of type "
                                      "string"),
            std::string::npos);
  r = Canon("leases", R"({"spec": {"renewTime": "yesterday"}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kBadRequest);
  r = Canon("configmaps", R"({"binaryData": {"a": "not base64!"}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("illegal base64 data at input byte"), std::string::npos);
  r = Canon("leases", R"([1, 2])");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kBadRequest);
}

TEST(CanonicalizeTest, UnknownFieldsDroppedOrStrictError) {
  const std::string text = R"({"metadata": {"name": "x", "bogus": 1},
                               "spec": {"foo": 1, "bar": {"x": 1}, "holderIdentity": "a"},
                               "status": {}})";
  auto loose = Canon("leases", text);
  ASSERT_TRUE(loose.ok());
  EXPECT_EQ((*loose)["spec"], json::parse(R"({"holderIdentity": "a"})"));
  EXPECT_FALSE(loose->contains("status"));
  auto strict = Canon("leases", text, true);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(strict.status().message(),
            "Lease in version \"v1\" cannot be handled as a Lease: strict decoding error: "
            "unknown field \"metadata.bogus\", unknown field \"spec.bar\", unknown field "
            "\"spec.foo\", unknown field \"status\"");
  auto nested = Canon("configmaps", R"({"metadata": {"ownerReferences": [{"x": 1}]}})", true);
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("unknown field \"metadata.ownerReferences[0].x\""),
            std::string::npos);
}

TEST(CanonicalizeTest, TypeMetaChecks) {
  auto r = Canon("leases", R"({"apiVersion": "v1", "kind": "Lease"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kBadRequest);
  EXPECT_NE(r.status().message().find("no kind \"Lease\" is registered for version \"v1\""),
            std::string::npos);
  r = Canon("leases", R"({"apiVersion": "coordination.k8s.io/v1", "kind": "ConfigMap"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kBadRequest);
  r = Canon("leasecandidates", R"({"apiVersion": "coordination.k8s.io/v1"})");
  ASSERT_FALSE(r.ok());
  r = Canon("leases", R"({"apiVersion": 1})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kBadRequest);
  r = Canon("configmaps", R"({"apiVersion": "v1", "kind": "ConfigMap"})");
  EXPECT_TRUE(r.ok());
}

TEST(CanonicalizeTest, NullMeansUnsetAndOmitEmpty) {
  auto r = Canon("configmaps", R"({"metadata": {"name": "c", "labels": null,
                                   "finalizers": [], "generation": 0},
                                   "data": {"a": null, "b": "x"}, "binaryData": {},
                                   "immutable": false})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
                                "metadata": {"name": "c"}, "data": {"a": "", "b": "x"},
                                "immutable": false})"));
}

TEST(CanonicalizeTest, EventKeepsKubeShape) {
  auto r = Canon("events", R"({"metadata": {"name": "e", "namespace": "ns"},
                               "involvedObject": {"kind": "Lease", "name": "l"},
                               "reason": "LeaderElection", "count": 1,
                               "firstTimestamp": "2024-01-01T00:00:00.999Z"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, json::parse(R"({"apiVersion": "v1", "kind": "Event",
      "metadata": {"name": "e", "namespace": "ns"},
      "involvedObject": {"kind": "Lease", "name": "l"}, "reason": "LeaderElection", "count": 1,
      "source": {}, "firstTimestamp": "2024-01-01T00:00:00Z", "lastTimestamp": null,
      "eventTime": null, "reportingComponent": "", "reportingInstance": ""})"));
}

TEST(CanonicalizeTest, NamespaceShape) {
  auto r = Canon("namespaces", R"({"metadata": {"name": "n"}, "status": {"phase": "Active"}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, json::parse(R"({"apiVersion": "v1", "kind": "Namespace",
      "metadata": {"name": "n"}, "spec": {}, "status": {"phase": "Active"}})"));
}

}  // namespace
}  // namespace tenure::api
