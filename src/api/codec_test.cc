// Tests of the typed codec (ToJson, *FromJson): round trips per kind, tolerance, lists, Base64.
#include "api/codec.h"

#include <gtest/gtest.h>

#include "api/kinds.h"

namespace tenure::api {
namespace {

using nlohmann::json;

Timestamp T(const char* text) { return *ParseTime(text); }

Lease SampleLease() {
  Lease lease;
  lease.metadata.name = "kube-scheduler";
  lease.metadata.namespace_ = "kube-system";
  lease.metadata.resource_version = "42";
  lease.metadata.uid = "0b9f1c3e-1111-2222-3333-444455556666";
  lease.metadata.creation_timestamp = T("2024-01-01T00:00:00Z");
  lease.metadata.labels = {{"app", "sched"}};
  lease.spec.holder_identity = "node-1_abc";
  lease.spec.lease_duration_seconds = 15;
  lease.spec.acquire_time = T("2024-01-01T00:00:01.000001Z");
  lease.spec.renew_time = T("2024-01-01T00:00:09.685777Z");
  lease.spec.lease_transitions = 3;
  return lease;
}

TEST(CodecTest, LeaseRoundTrip) {
  const Lease lease = SampleLease();
  const json j = ToJson(lease);
  EXPECT_EQ(j["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(j["kind"], "Lease");
  EXPECT_EQ(j["spec"]["renewTime"], "2024-01-01T00:00:09.685777Z");
  EXPECT_EQ(j["metadata"]["creationTimestamp"], "2024-01-01T00:00:00Z");
  EXPECT_FALSE(j["spec"].contains("strategy"));
  auto back = LeaseFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, lease);
  // ToJson is already canonical.
  auto canonical =
      Canonicalize(*FindByKind("coordination.k8s.io", "Lease"), j, DecodeOptions{true});
  ASSERT_TRUE(canonical.ok());
  EXPECT_EQ(*canonical, j);
}

TEST(CodecTest, EmptyHolderIsKept) {
  Lease lease;
  lease.metadata.name = "x";
  lease.spec.holder_identity = "";
  const json j = ToJson(lease);
  EXPECT_EQ(j["spec"], json::parse(R"({"holderIdentity": ""})"));
  EXPECT_EQ(LeaseFromJson(j)->spec.holder_identity, std::optional<std::string>(""));
}

TEST(CodecTest, FromJsonIsTolerant) {
  auto lease = LeaseFromJson(json::parse(R"({"metadata": {"name": "x", "future": 1},
      "spec": {"renewTime": "2024-01-01T00:00:00.5+01:00", "newField": true},
      "status": {"x": 1}})"));
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(FormatMicroTime(*lease->spec.renew_time), "2023-12-31T23:00:00.500000Z");
  auto bad = LeaseFromJson(json::parse(R"({"spec": {"leaseDurationSeconds": "15"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().reason(), Reason::kBadRequest);
  EXPECT_NE(bad.status().message().find("LeaseSpec.spec.leaseDurationSeconds of type int32"),
            std::string::npos);
}

TEST(CodecTest, LeaseCandidateRoundTrip) {
  LeaseCandidate c;
  c.metadata.name = "node-1";
  c.metadata.namespace_ = "kube-system";
  c.spec.lease_name = "kube-scheduler";
  c.spec.binary_version = "1.33.0";
  c.spec.emulation_version = "1.32.0";
  c.spec.strategy = "OldestEmulationVersion";
  c.spec.renew_time = T("2024-01-01T00:00:00.000001Z");
  json j = ToJson(c);
  EXPECT_EQ(j["apiVersion"], "coordination.k8s.io/v1beta1");
  EXPECT_EQ(ToJson(c, "v1alpha2")["apiVersion"], "coordination.k8s.io/v1alpha2");
  EXPECT_FALSE(j["spec"].contains("pingTime"));
  EXPECT_EQ(*LeaseCandidateFromJson(j), c);
  auto canonical = Canonicalize(*FindByKind("coordination.k8s.io", "LeaseCandidate"), j, {});
  ASSERT_TRUE(canonical.ok());
  EXPECT_EQ(*canonical, j);
}

TEST(CodecTest, ConfigMapBinaryData) {
  ConfigMap cm;
  cm.metadata.name = "c";
  cm.data = {{"a", "1"}};
  cm.binary_data = {{"bin", std::string("\x00\xff\x10", 3)}, {"two", "ab"}, {"one", "a"}};
  cm.immutable = false;
  json j = ToJson(cm);
  EXPECT_EQ(j["binaryData"]["bin"], "AP8Q");
  EXPECT_EQ(j["binaryData"]["two"], "YWI=");
  EXPECT_EQ(j["binaryData"]["one"], "YQ==");
  EXPECT_EQ(j["immutable"], false);
  EXPECT_EQ(*ConfigMapFromJson(j), cm);
  auto canonical = Canonicalize(*FindByKind("", "ConfigMap"), j, DecodeOptions{true});
  ASSERT_TRUE(canonical.ok());
  EXPECT_EQ(*canonical, j);
}

TEST(CodecTest, EventRoundTrip) {
  Event e;
  e.metadata.name = "kube-scheduler.17a";
  e.metadata.namespace_ = "kube-system";
  e.involved_object = {
      "Lease", "kube-system", "kube-scheduler", "uid-1", "coordination.k8s.io/v1", "42", ""};
  e.reason = "LeaderElection";
  e.message = "node-1 became leader";
  e.source.component = "node-1_abc";
  e.first_timestamp = T("2024-01-01T00:00:00Z");
  e.last_timestamp = T("2024-01-01T00:00:00Z");
  e.count = 1;
  e.type = "Normal";
  e.reporting_component = "tenure";
  json j = ToJson(e);
  EXPECT_TRUE(j["eventTime"].is_null());
  EXPECT_EQ(j["reportingInstance"], "");
  EXPECT_EQ(*EventFromJson(j), e);
  auto canonical = Canonicalize(*FindByKind("", "Event"), j, DecodeOptions{true});
  ASSERT_TRUE(canonical.ok());
  EXPECT_EQ(*canonical, j);

  e.series = EventSeries{3, T("2024-01-01T00:00:05.000002Z")};
  e.related = ObjectReference{"Pod", "kube-system", "p", "", "v1", "", ""};
  e.event_time = T("2024-01-01T00:00:00.5Z");
  j = ToJson(e);
  EXPECT_EQ(*EventFromJson(j), e);
  EXPECT_EQ(*Canonicalize(*FindByKind("", "Event"), j, DecodeOptions{true}), j);
}

TEST(CodecTest, NamespaceAndMetadata) {
  Namespace ns;
  ns.metadata.name = "team-a";
  ns.metadata.owner_references = {{"v1", "Thing", "t", "u", true, std::nullopt}};
  ns.metadata.finalizers = {"example.com/f"};
  ns.metadata.deletion_grace_period_seconds = 30;
  ns.metadata.generation = 2;
  ns.spec.finalizers = {"kubernetes"};
  ns.status.phase = "Active";
  json j = ToJson(ns);
  EXPECT_EQ(j["spec"]["finalizers"], json::array({"kubernetes"}));
  EXPECT_EQ(*NamespaceFromJson(j), ns);
  EXPECT_EQ(*Canonicalize(*FindByKind("", "Namespace"), j, DecodeOptions{true}), j);
  EXPECT_EQ(*ObjectMetaFromJson(j["metadata"]), ns.metadata);
}

TEST(CodecTest, Lists) {
  json list = {{"apiVersion", "coordination.k8s.io/v1"},
               {"kind", "LeaseList"},
               {"metadata", {{"resourceVersion", "77"}, {"continue", "tok"}}},
               {"items", json::array({ToJson(SampleLease()), ToJson(SampleLease())})}};
  auto leases = LeaseListFromJson(list);
  ASSERT_TRUE(leases.ok());
  EXPECT_EQ(leases->metadata.resource_version, "77");
  EXPECT_EQ(leases->metadata.continue_token, "tok");
  ASSERT_EQ(leases->items.size(), 2u);
  EXPECT_EQ(leases->items[0], SampleLease());
  list["items"] = json::array();
  EXPECT_TRUE(LeaseListFromJson(list)->items.empty());
  list["items"] = json::array({{{"spec", {{"leaseTransitions", "x"}}}}});
  EXPECT_FALSE(LeaseListFromJson(list).ok());
}

// A read-modify-write through a decoded struct sends back what the struct does not model, at the
// top and inside nested objects, and what the code changed or cleared.
TEST(CodecTest, ADecodedObjectKeepsWhatItsStructDoesNotModel) {
  const json server = json::parse(R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "l", "namespace": "ns", "resourceVersion": "7", "selfLink": "/x",
                 "managedFields": [{"manager": "kubectl"}], "futureMeta": 1},
    "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15, "futureSpec": {"k": "v"},
             "preferredHolder": "b"},
    "status": {"observed": true}})");
  for (bool lenient : {false, true}) {
    Lease lease = *LeaseFromJson(server);
    if (lenient) {  // what the locks do on their hot path: read leniently, keep the original
      lease = LenientLease(server);
      lease.original = WireOriginal(std::make_shared<const json>(server));
    }
    lease.spec.holder_identity = "c";
    lease.spec.preferred_holder.reset();
    lease.metadata.labels["added"] = "yes";
    json sent = ToJson(lease);
    json expected = server;
    expected["spec"]["holderIdentity"] = "c";
    expected["spec"].erase("preferredHolder");
    expected["metadata"]["labels"] = {{"added", "yes"}};
    EXPECT_EQ(sent, expected) << sent.dump();
  }
  // A struct built in code has nothing to keep; equality ignores what was decoded from.
  Lease built = *LeaseFromJson(server);
  Lease copy = built;
  copy.original = WireOriginal();
  EXPECT_EQ(built, copy);
  EXPECT_FALSE(ToJson(copy).contains("status"));
}

// Only what the code changed is written: a field the struct could not read, or wrote in another
// form, goes back as it came unless the code changed it.
TEST(CodecTest, UnchangedFieldsGoBackAsTheyCame) {
  const json server = json::parse(R"({
    "metadata": {"name": "c", "labels": {"n": 1, "s": "x"},
                 "creationTimestamp": "2024-01-01T02:00:00+02:00"},
    "data": {"k": "v"}, "binaryData": {"bad": "not base64!"}})");
  ConfigMap configmap = LenientConfigMap(server);
  configmap.original = WireOriginal(std::make_shared<const json>(server));
  EXPECT_EQ(configmap.binary_data.at("bad"), "");
  configmap.metadata.annotations["leader"] = "me";
  json expected = server;
  expected["metadata"]["annotations"] = {{"leader", "me"}};
  expected["apiVersion"] = "v1";
  expected["kind"] = "ConfigMap";
  EXPECT_EQ(ToJson(configmap), expected) << ToJson(configmap).dump();

  configmap.data["k"] = "w";  // changed: written as the struct holds it
  configmap.metadata.labels.erase("s");
  expected["data"]["k"] = "w";
  EXPECT_EQ(ToJson(configmap)["data"], expected["data"]);
  EXPECT_FALSE(ToJson(configmap)["metadata"].contains("labels")) << ToJson(configmap).dump();
}

// The lenient read takes what it can and never fails: another client's odd record must not stop
// an elector from reading the lease.
TEST(CodecTest, LenientReadsTakeWhatTheyCan) {
  const json odd = json::parse(R"({"metadata": {"name": 3, "namespace": "ns"},
    "spec": {"holderIdentity": "a", "leaseDurationSeconds": "15", "renewTime": "yesterday",
             "acquireTime": "2024-01-01T02:00:00.5+02:00", "leaseTransitions": 4}})");
  EXPECT_FALSE(LeaseFromJson(odd).ok());
  Lease lease = LenientLease(odd);
  EXPECT_EQ(lease.metadata.name, "");
  EXPECT_EQ(lease.metadata.namespace_, "ns");
  EXPECT_EQ(lease.spec.holder_identity, "a");
  EXPECT_EQ(lease.spec.lease_duration_seconds, std::nullopt);
  EXPECT_EQ(lease.spec.renew_time, std::nullopt);
  EXPECT_EQ(lease.spec.acquire_time, T("2024-01-01T00:00:00.5Z"));
  EXPECT_EQ(lease.spec.lease_transitions, 4);
  EXPECT_EQ(LenientLease(json::array()), Lease());
  EXPECT_EQ(LenientMetadata(odd).namespace_, "ns");
  EXPECT_EQ(LenientMetadata(json::array()), ObjectMeta());
  EXPECT_EQ(LenientConfigMap(json::parse(R"({"data": {"k": "v", "n": 1}})")).data,
            (std::map<std::string, std::string>{{"k", "v"}}));
}

TEST(CodecTest, DeleteOptions) {
  EXPECT_EQ(ToJson(DeleteOptions()).dump(), R"({"apiVersion":"v1","kind":"DeleteOptions"})");
  DeleteOptions options;
  options.preconditions = Preconditions{.uid = "u", .resource_version = "7"};
  options.grace_period_seconds = 0;
  options.propagation_policy = "Background";
  EXPECT_EQ(
      ToJson(options).dump(),
      R"({"apiVersion":"v1","gracePeriodSeconds":0,"kind":"DeleteOptions",)"
      R"("preconditions":{"resourceVersion":"7","uid":"u"},"propagationPolicy":"Background"})");
}

TEST(CodecTest, Base64) {
  for (std::string s : {std::string(), std::string("a"), std::string("ab"), std::string("abc"),
                        std::string("\x00\x01\x02\xfe\xff", 5)}) {
    EXPECT_EQ(Base64Decode(Base64Encode(s)), s);
  }
  EXPECT_FALSE(Base64Decode("abc"));
  EXPECT_FALSE(Base64Decode("a=bc"));
  EXPECT_FALSE(Base64Decode("ab!c"));
}

}  // namespace
}  // namespace tenure::api
