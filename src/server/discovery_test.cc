// Tests of discovery: version priority, group and resource lists, Accept, aggregated, /version.
#include "server/discovery.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

namespace tenure::server {
namespace {

using nlohmann::json;

const api::KindInfo* Kind(std::string_view group, std::string_view resource) {
  const api::KindInfo* kind = api::FindByResource(group, resource);
  EXPECT_NE(kind, nullptr) << resource;
  return kind;
}

std::vector<ServedVersion> Served() {
  return {{Kind("coordination.k8s.io", "leasecandidates"), "v1alpha2"},
          {Kind("coordination.k8s.io", "leases"), "v1"},
          {Kind("coordination.k8s.io", "leasecandidates"), "v1beta1"},
          {Kind("", "configmaps"), "v1"},
          {Kind("", "namespaces"), "v1"},
          {Kind("", "events"), "v1"}};
}

TEST(DiscoveryTest, KubeVersionPriority) {
  EXPECT_LT(CompareKubeVersions("v1", "v1beta1"), 0);
  EXPECT_LT(CompareKubeVersions("v2", "v1"), 0);
  EXPECT_LT(CompareKubeVersions("v1beta2", "v1beta1"), 0);
  EXPECT_LT(CompareKubeVersions("v1beta1", "v1alpha2"), 0);
  EXPECT_LT(CompareKubeVersions("v1alpha1", "foo"), 0);
  EXPECT_EQ(CompareKubeVersions("v1", "v1"), 0);
  EXPECT_GT(CompareKubeVersions("v1alpha2", "v1"), 0);
}

TEST(DiscoveryTest, AllServedVersionsCoversTheRegistry) {
  auto served = AllServedVersions();
  EXPECT_GE(served.size(), 6u);
  for (const ServedVersion& s : served) {
    ASSERT_NE(s.kind, nullptr);
    EXPECT_FALSE(s.version.empty());
  }
}

TEST(DiscoveryTest, ApiVersions) {
  json out = ApiVersions(Served(), "127.0.0.1:6443");
  EXPECT_EQ(out["kind"], "APIVersions");
  EXPECT_EQ(out["versions"], json::array({"v1"}));
  EXPECT_EQ(out["serverAddressByClientCIDRs"][0]["clientCIDR"], "0.0.0.0/0");
  EXPECT_EQ(out["serverAddressByClientCIDRs"][0]["serverAddress"], "127.0.0.1:6443");
  EXPECT_FALSE(ApiVersions(Served(), "").contains("serverAddressByClientCIDRs"));
}

TEST(DiscoveryTest, ApiGroupListPrefersV1) {
  json out = ApiGroupList(Served());
  EXPECT_EQ(out["kind"], "APIGroupList");
  EXPECT_EQ(out["apiVersion"], "v1");
  ASSERT_EQ(out["groups"].size(), 1u);
  const json& group = out["groups"][0];
  EXPECT_EQ(group["name"], "coordination.k8s.io");
  EXPECT_EQ(group["versions"],
            json::parse(R"([{"groupVersion":"coordination.k8s.io/v1","version":"v1"},
                            {"groupVersion":"coordination.k8s.io/v1beta1","version":"v1beta1"},
                            {"groupVersion":"coordination.k8s.io/v1alpha2","version":"v1alpha2"}])"));
  EXPECT_EQ(group["preferredVersion"],
            json::parse(R"({"groupVersion":"coordination.k8s.io/v1","version":"v1"})"));

  auto api_group = ApiGroup(Served(), "coordination.k8s.io");
  ASSERT_TRUE(api_group.has_value());
  EXPECT_EQ((*api_group)["kind"], "APIGroup");
  EXPECT_EQ((*api_group)["preferredVersion"]["version"], "v1");
  EXPECT_FALSE(ApiGroup(Served(), "apps").has_value());
}

TEST(DiscoveryTest, ApiResourceLists) {
  auto core = ApiResourceList(Served(), "", "v1");
  ASSERT_TRUE(core.has_value());
  EXPECT_EQ((*core)["kind"], "APIResourceList");
  EXPECT_EQ((*core)["groupVersion"], "v1");
  // Three resources, and the namespaces' subresources right after them, as kube lists them.
  ASSERT_EQ((*core)["resources"].size(), 5u);
  json configmaps;
  std::map<std::string, json> by_name;
  for (const json& r : (*core)["resources"]) {
    by_name[r["name"].get<std::string>()] = r;
    if (r["name"] == "configmaps") configmaps = r;
    EXPECT_TRUE(r.contains("singularName"));
    EXPECT_TRUE(r.contains("namespaced"));
    EXPECT_TRUE(r.contains("kind"));
    EXPECT_FALSE(r["verbs"].empty());
  }
  EXPECT_EQ(by_name["namespaces/finalize"],
            json::parse(R"({"name":"namespaces/finalize","singularName":"","namespaced":false,
                            "kind":"Namespace","verbs":["update"]})"));
  EXPECT_EQ(by_name["namespaces/status"]["verbs"], json::parse(R"(["get","patch","update"])"));
  EXPECT_EQ(configmaps["singularName"], "configmap");
  EXPECT_EQ(configmaps["namespaced"], true);
  EXPECT_EQ(configmaps["kind"], "ConfigMap");
  EXPECT_EQ(configmaps["shortNames"], json::array({"cm"}));
  EXPECT_EQ(configmaps["verbs"], json::parse(R"(["create","delete","deletecollection","get",
                                                  "list","patch","update","watch"])"));
  // The value kube-apiserver reports for configmaps.
  EXPECT_EQ(configmaps["storageVersionHash"], "qFsyl6wFWjQ=");

  auto leases = ApiResourceList(Served(), "coordination.k8s.io", "v1");
  ASSERT_TRUE(leases.has_value());
  EXPECT_EQ((*leases)["groupVersion"], "coordination.k8s.io/v1");
  ASSERT_EQ((*leases)["resources"].size(), 1u);
  EXPECT_EQ((*leases)["resources"][0]["name"], "leases");
  EXPECT_EQ((*leases)["resources"][0]["kind"], "Lease");
  EXPECT_EQ((*leases)["resources"][0]["storageVersionHash"], "gqkMMb/YqFM=");
  EXPECT_FALSE((*leases)["resources"][0].contains("shortNames"));

  auto candidates = ApiResourceList(Served(), "coordination.k8s.io", "v1beta1");
  ASSERT_TRUE(candidates.has_value());
  EXPECT_EQ((*candidates)["resources"][0]["name"], "leasecandidates");

  EXPECT_FALSE(ApiResourceList(Served(), "coordination.k8s.io", "v2").has_value());
  EXPECT_FALSE(ApiResourceList(Served(), "apps", "v1").has_value());
  EXPECT_FALSE(ApiResourceList({{Kind("coordination.k8s.io", "leases"), "v1"}},
                               "coordination.k8s.io", "v1beta1")
                   .has_value());
}

TEST(DiscoveryTest, AcceptNegotiation) {
  const char* kubectl =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
      "application/json";
  EXPECT_TRUE(WantsAggregatedDiscovery(kubectl));
  EXPECT_EQ(AggregatedDiscoveryVersion(kubectl), "v2");
  EXPECT_EQ(AggregatedDiscoveryVersion(
                "application/json; as=APIGroupDiscoveryList; v=v2beta1; g=apidiscovery.k8s.io"),
            "v2beta1");
  EXPECT_FALSE(WantsAggregatedDiscovery("application/json, */*"));
  EXPECT_FALSE(WantsAggregatedDiscovery(""));
  EXPECT_FALSE(WantsAggregatedDiscovery(
      "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
  EXPECT_EQ(kAggregatedDiscoveryContentType,
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_EQ(AggregatedDiscoveryContentType("v2"), kAggregatedDiscoveryContentType);
  EXPECT_EQ(AggregatedDiscoveryContentType("v2beta1"), kAggregatedDiscoveryV2Beta1ContentType);
}

TEST(DiscoveryTest, AggregatedApis) {
  json out = AggregatedDiscovery(Served(), /*core=*/false);
  EXPECT_EQ(out["kind"], "APIGroupDiscoveryList");
  EXPECT_EQ(out["apiVersion"], "apidiscovery.k8s.io/v2");
  ASSERT_EQ(out["items"].size(), 1u);
  const json& group = out["items"][0];
  EXPECT_EQ(group["metadata"]["name"], "coordination.k8s.io");
  ASSERT_EQ(group["versions"].size(), 3u);
  EXPECT_EQ(group["versions"][0]["version"], "v1");
  EXPECT_EQ(group["versions"][0]["freshness"], "Current");
  const json& lease = group["versions"][0]["resources"][0];
  EXPECT_EQ(lease["resource"], "leases");
  EXPECT_EQ(lease["responseKind"],
            json::parse(R"({"group":"coordination.k8s.io","version":"v1","kind":"Lease"})"));
  EXPECT_EQ(lease["scope"], "Namespaced");
  EXPECT_EQ(lease["singularResource"], "lease");
  EXPECT_EQ(lease["verbs"].size(), 8u);
  EXPECT_EQ(group["versions"][1]["resources"][0]["responseKind"]["version"], "v1beta1");

  EXPECT_EQ(AggregatedDiscovery(Served(), false, "v2beta1")["apiVersion"],
            "apidiscovery.k8s.io/v2beta1");
}

TEST(DiscoveryTest, AggregatedCore) {
  json out = AggregatedDiscovery(Served(), /*core=*/true);
  ASSERT_EQ(out["items"].size(), 1u);
  const json& group = out["items"][0];
  EXPECT_FALSE(group["metadata"].contains("name"));
  ASSERT_EQ(group["versions"].size(), 1u);
  EXPECT_EQ(group["versions"][0]["version"], "v1");
  bool saw_namespaces = false;
  for (const json& r : group["versions"][0]["resources"]) {
    EXPECT_EQ(r["responseKind"]["group"], "");
    if (r["resource"] == "namespaces") {
      saw_namespaces = true;
      EXPECT_EQ(r["scope"], "Cluster");
      EXPECT_EQ(r["responseKind"]["kind"], "Namespace");
    }
    if (r["resource"] == "configmaps") {
      EXPECT_EQ(r["shortNames"], json::array({"cm"}));
    }
  }
  EXPECT_TRUE(saw_namespaces);

  json none = AggregatedDiscovery({{Kind("coordination.k8s.io", "leases"), "v1"}}, true);
  EXPECT_TRUE(none["items"].empty());
}

TEST(DiscoveryTest, Version) {
  json out = VersionInfo();
  EXPECT_EQ(out["major"], "1");
  EXPECT_EQ(out["minor"], "33");
  EXPECT_EQ(out["gitVersion"], "v1.33.0");
  EXPECT_EQ(out["gitTreeState"], "clean");
  EXPECT_EQ(out["compiler"], "gc");
  EXPECT_TRUE(out.contains("platform"));
  EXPECT_TRUE(out.contains("buildDate"));
  EXPECT_TRUE(out.contains("gitCommit"));

  EmulatedVersion v;
  v.minor = 32;
  v.patch = 4;
  json older = VersionInfo(v);
  EXPECT_EQ(older["minor"], "32");
  EXPECT_EQ(older["gitVersion"], "v1.32.4");
}

}  // namespace
}  // namespace tenure::server
