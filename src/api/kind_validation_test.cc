// Tests of ValidateCreate/ValidateUpdate for Lease, LeaseCandidate, ConfigMap, Namespace, Event.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

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

json Lease(json spec, std::string name = "bad") {
  return json{{"apiVersion", "coordination.k8s.io/v1"},
              {"kind", "Lease"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", std::move(spec)}};
}

json Candidate(json spec, std::string name = "cand") {
  return json{{"apiVersion", "coordination.k8s.io/v1beta1"},
              {"kind", "LeaseCandidate"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", std::move(spec)}};
}

json GoodCandidateSpec() {
  return json{{"leaseName", "l"},
              {"binaryVersion", "1.33.0"},
              {"emulationVersion", "1.32.0"},
              {"strategy", "OldestEmulationVersion"}};
}

std::vector<StatusCause> Causes(const Status& s) { return s.causes(); }

TEST(LeaseValidationTest, ValidLease) {
  EXPECT_TRUE(ValidateCreate(K("leases"), Lease({{"holderIdentity", "a"},
                                                 {"leaseDurationSeconds", 15},
                                                 {"leaseTransitions", 0}}))
                  .ok());
  EXPECT_TRUE(ValidateCreate(K("leases"), Lease(json::object())).ok());
}

TEST(LeaseValidationTest, DurationMustBePositive) {
  Status s = ValidateCreate(K("leases"), Lease({{"leaseDurationSeconds", -1}}));
  EXPECT_EQ(s.reason(), Reason::kInvalid);
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"bad\" is invalid: spec.leaseDurationSeconds: Invalid "
            "value: -1: must be greater than 0");
  EXPECT_EQ(Causes(s), (std::vector<StatusCause>{{"FieldValueInvalid",
                                                  "Invalid value: -1: must be greater than 0",
                                                  "spec.leaseDurationSeconds"}}));
  EXPECT_FALSE(ValidateCreate(K("leases"), Lease({{"leaseDurationSeconds", 0}})).ok());
}

TEST(LeaseValidationTest, TransitionsNonNegative) {
  Status s = ValidateCreate(K("leases"), Lease({{"leaseTransitions", -2}}));
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"bad\" is invalid: spec.leaseTransitions: Invalid value: "
            "-2: must be greater than or equal to 0");
}

TEST(LeaseValidationTest, Strategy) {
  EXPECT_TRUE(ValidateCreate(K("leases"), Lease({{"strategy", "OldestEmulationVersion"}})).ok());
  EXPECT_TRUE(ValidateCreate(K("leases"), Lease({{"strategy", "example.com/mine"}})).ok());
  Status s = ValidateCreate(K("leases"), Lease({{"strategy", "Newest"}}));
  // kube-apiserver reports this field as spec.strategy.strategy.
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"bad\" is invalid: spec.strategy.strategy: Unsupported "
            "value: \"Newest\": supported values: \"OldestEmulationVersion\"");
  EXPECT_EQ(s.causes()[0].type, "FieldValueNotSupported");
  s = ValidateCreate(K("leases"), Lease({{"strategy", "Bad_Domain/x"}}));
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].field, "spec.strategy.strategy");
  EXPECT_EQ(s.causes()[0].message.rfind("Invalid value: \"Bad_Domain/x\": prefix part a lowercase "
                                        "RFC 1123 subdomain",
                                        0),
            0u);
}

TEST(LeaseValidationTest, PreferredHolderNeedsStrategy) {
  Status s = ValidateCreate(K("leases"), Lease({{"preferredHolder", "b"}}));
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"bad\" is invalid: spec.preferredHolder: Forbidden: may "
            "only be specified if `strategy` is defined");
  EXPECT_EQ(s.causes()[0].type, "FieldValueForbidden");
  EXPECT_TRUE(ValidateCreate(K("leases"), Lease({{"preferredHolder", ""}})).ok());
  EXPECT_TRUE(ValidateCreate(K("leases"), Lease({{"preferredHolder", "b"},
                                                 {"strategy", "OldestEmulationVersion"}}))
                  .ok());
}

TEST(LeaseValidationTest, SeveralErrorsInBrackets) {
  Status s =
      ValidateCreate(K("leases"), Lease({{"leaseDurationSeconds", 0}, {"leaseTransitions", -1}}));
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"bad\" is invalid: [spec.leaseDurationSeconds: Invalid "
            "value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be "
            "greater than or equal to 0]");
  EXPECT_EQ(s.causes().size(), 2u);
}

TEST(LeaseValidationTest, NameIsDnsSubdomain) {
  Status s = ValidateCreate(K("leases"), Lease(json::object(), "Bad_Name"));
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"Bad_Name\" is invalid: metadata.name: Invalid value: "
            "\"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_TRUE(ValidateCreate(K("leases"), Lease(json::object(), "kube-scheduler.x")).ok());
}

TEST(LeaseValidationTest, NameAndNamespaceRequired) {
  json lease = Lease(json::object(), "");
  lease["metadata"].erase("namespace");
  Status s = ValidateCreate(K("leases"), lease);
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"\" is invalid: [metadata.name: Required value: name or "
            "generateName is required, metadata.namespace: Required value]");
  EXPECT_EQ(s.causes()[0].type, "FieldValueRequired");
}

TEST(MetadataValidationTest, LabelsAndAnnotations) {
  json lease = Lease(json::object(), "x");
  lease["metadata"]["labels"] = {{"app", "-bad"}};
  Status s = ValidateCreate(K("leases"), lease);
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].field, "metadata.labels");
  EXPECT_EQ(s.causes()[0].message,
            "Invalid value: \"-bad\": a valid label must be an empty string or consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
            "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  lease["metadata"]["labels"] = {{"a/b/c", "v"}};
  EXPECT_FALSE(ValidateCreate(K("leases"), lease).ok());
  lease["metadata"].erase("labels");
  lease["metadata"]["annotations"] = {{"Example.COM/Key", "v"}};
  EXPECT_TRUE(ValidateCreate(K("leases"), lease).ok());
  lease["metadata"]["annotations"] = {{"big", std::string(256 * 1024, 'x')}};
  s = ValidateCreate(K("leases"), lease);
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0],
            (StatusCause{"FieldValueTooLong", "Too long: may not be more than 262144 bytes",
                         "metadata.annotations"}));
}

TEST(MetadataValidationTest, GenerateNameAndOwners) {
  json lease = Lease(json::object(), "x");
  lease["metadata"]["generateName"] = "lease-";
  EXPECT_TRUE(ValidateCreate(K("leases"), lease).ok());
  lease["metadata"]["generateName"] = "Lease-";
  EXPECT_EQ(ValidateCreate(K("leases"), lease).causes()[0].field, "metadata.generateName");
  lease["metadata"].erase("generateName");
  lease["metadata"]["ownerReferences"] =
      json::array({{{"apiVersion", ""}, {"kind", "Pod"}, {"name", "p"}, {"uid", "u"}}});
  Status s = ValidateCreate(K("leases"), lease);
  ASSERT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].field, "metadata.ownerReferences.apiVersion");
  EXPECT_EQ(s.causes()[0].message, "Invalid value: \"\": version must not be empty");
}

TEST(LeaseCandidateValidationTest, Valid) {
  EXPECT_TRUE(ValidateCreate(K("leasecandidates"), Candidate(GoodCandidateSpec())).ok());
  json spec = GoodCandidateSpec();
  spec["strategy"] = "example.com/custom";
  spec.erase("emulationVersion");
  EXPECT_TRUE(ValidateCreate(K("leasecandidates"), Candidate(spec)).ok());
  // Names are config-map keys: upper case and underscores are allowed.
  EXPECT_TRUE(
      ValidateCreate(K("leasecandidates"), Candidate(GoodCandidateSpec(), "Node_1.a")).ok());
}

TEST(LeaseCandidateValidationTest, RequiredFields) {
  Status s =
      ValidateCreate(K("leasecandidates"),
                     Candidate({{"leaseName", ""}, {"binaryVersion", ""}, {"strategy", ""}}));
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"cand\" is invalid: [spec.leaseName: Required "
            "value, spec.binaryVersion: Required value, spec.strategy: Required value]");
}

TEST(LeaseCandidateValidationTest, Versions) {
  json spec = GoodCandidateSpec();
  spec["binaryVersion"] = "v1.33.0";
  Status s = ValidateCreate(K("leasecandidates"), Candidate(spec));
  // An unparsable binary version compares as 0.0.0, below the emulation version.
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"cand\" is invalid: [spec.binaryVersion: "
            "Invalid value: \"v1.33.0\": must be a valid semantic version, spec.binaryVersion: "
            "Invalid value: \"v1.33.0\": must be greater than or equal to `emulationVersion`]");

  spec = GoodCandidateSpec();
  spec["emulationVersion"] = "1.34.0";
  s = ValidateCreate(K("leasecandidates"), Candidate(spec));
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"cand\" is invalid: spec.binaryVersion: Invalid "
            "value: \"1.33.0\": must be greater than or equal to `emulationVersion`");

  spec = GoodCandidateSpec();
  spec["emulationVersion"] = "1.32";
  s = ValidateCreate(K("leasecandidates"), Candidate(spec));
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"cand\" is invalid: [spec.emulationVersion: "
            "Invalid value: \"1.32\": must be a valid semantic version, spec.emulationVersion: "
            "Required value: must be specified when `strategy` is 'OldestEmulationVersion']");
}

TEST(LeaseCandidateValidationTest, EmulationVersionRequiredForOldest) {
  json spec = GoodCandidateSpec();
  spec.erase("emulationVersion");
  Status s = ValidateCreate(K("leasecandidates"), Candidate(spec));
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"cand\" is invalid: spec.emulationVersion: "
            "Required value: must be specified when `strategy` is 'OldestEmulationVersion'");
  spec["emulationVersion"] = "0.0.0";
  EXPECT_FALSE(ValidateCreate(K("leasecandidates"), Candidate(spec)).ok());
}

TEST(LeaseCandidateValidationTest, StrategyAndName) {
  json spec = GoodCandidateSpec();
  spec["strategy"] = "Newest";
  Status s = ValidateCreate(K("leasecandidates"), Candidate(spec));
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"cand\" is invalid: spec.strategy.strategy: "
            "Unsupported value: \"Newest\": supported values: \"OldestEmulationVersion\"");
  s = ValidateCreate(K("leasecandidates"), Candidate(GoodCandidateSpec(), ".."));
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"..\" is invalid: metadata.name: Invalid value: "
            "\"..\": must not be '..'");
  s = ValidateCreate(K("leasecandidates"), Candidate(GoodCandidateSpec(), "a/b"));
  EXPECT_EQ(s.causes()[0].field, "metadata.name");
}

TEST(LeaseCandidateValidationTest, LeaseNameImmutable) {
  json old_obj = Candidate(GoodCandidateSpec());
  old_obj["metadata"]["resourceVersion"] = "5";
  json new_obj = old_obj;
  new_obj["spec"]["leaseName"] = "other";
  Status s = ValidateUpdate(K("leasecandidates"), new_obj, old_obj);
  EXPECT_EQ(s.message(),
            "LeaseCandidate.coordination.k8s.io \"cand\" is invalid: spec.leaseName: Invalid "
            "value: \"other\": field is immutable");
  new_obj["spec"]["leaseName"] = "l";
  new_obj["spec"]["renewTime"] = "2024-01-01T00:00:00.000000Z";
  EXPECT_TRUE(ValidateUpdate(K("leasecandidates"), new_obj, old_obj).ok());
}

TEST(UpdateValidationTest, LeaseUpdate) {
  json old_obj = Lease({{"leaseDurationSeconds", 15}}, "x");
  json new_obj = Lease({{"leaseDurationSeconds", -1}}, "x");
  EXPECT_EQ(ValidateUpdate(K("leases"), new_obj, old_obj).causes().size(), 1u);
  new_obj = Lease({{"leaseDurationSeconds", 10}}, "y");
  Status s = ValidateUpdate(K("leases"), new_obj, old_obj);
  EXPECT_EQ(s.message(),
            "Lease.coordination.k8s.io \"y\" is invalid: metadata.name: Invalid value: \"y\": "
            "field is immutable");
}

json ConfigMap(json data, std::string name = "cm") {
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", name}, {"namespace", "default"}}}};
  if (!data.is_null()) cm["data"] = std::move(data);
  return cm;
}

TEST(ConfigMapValidationTest, Keys) {
  EXPECT_TRUE(ValidateCreate(K("configmaps"), ConfigMap({{"a.b_C-1", "x"}})).ok());
  Status s = ValidateCreate(K("configmaps"), ConfigMap({{"a/b", "x"}}));
  EXPECT_EQ(s.message(),
            "ConfigMap \"cm\" is invalid: data[a/b]: Invalid value: \"a/b\": a valid config key "
            "must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
            "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  s = ValidateCreate(K("configmaps"), ConfigMap({{"..", "x"}}));
  EXPECT_EQ(s.causes()[0].message, "Invalid value: \"..\": must not be '..'");
  json cm = ConfigMap({{"k", "x"}});
  cm["binaryData"] = {{"k", "eA=="}, {"ok", "eA=="}};
  s = ValidateCreate(K("configmaps"), cm);
  EXPECT_EQ(s.message(),
            "ConfigMap \"cm\" is invalid: data[k]: Invalid value: \"k\": duplicate of key "
            "present in binaryData");
}

TEST(ConfigMapValidationTest, TotalSize) {
  Status s = ValidateCreate(K("configmaps"), ConfigMap({{"a", std::string(600 * 1024, 'x')},
                                                        {"b", std::string(600 * 1024, 'y')}}));
  EXPECT_EQ(s.message(),
            "ConfigMap \"cm\" is invalid: : Too long: may not be more than 1048576 bytes");
  EXPECT_EQ(s.causes()[0].type, "FieldValueTooLong");
  EXPECT_EQ(s.causes()[0].field, "");
  EXPECT_TRUE(
      ValidateCreate(K("configmaps"), ConfigMap({{"a", std::string(1024 * 1024, 'x')}})).ok());
}

TEST(ConfigMapValidationTest, NameAndFinalizers) {
  Status s = ValidateCreate(K("configmaps"), ConfigMap(json(), "UPPER"));
  EXPECT_EQ(s.causes()[0].field, "metadata.name");
  json cm = ConfigMap(json());
  cm["metadata"]["finalizers"] = {"custom"};
  s = ValidateCreate(K("configmaps"), cm);
  EXPECT_EQ(s.message(),
            "ConfigMap \"cm\" is invalid: metadata.finalizers[0]: Invalid value: \"custom\": "
            "name is neither a standard finalizer name nor is it fully qualified");
  cm["metadata"]["finalizers"] = {"example.com/custom", "kubernetes"};
  EXPECT_TRUE(ValidateCreate(K("configmaps"), cm).ok());
}

TEST(ConfigMapValidationTest, ImmutableForbidsChanges) {
  json old_cm = ConfigMap({{"a", "1"}});
  old_cm["immutable"] = true;
  json new_cm = old_cm;
  new_cm["data"]["a"] = "2";
  Status s = ValidateUpdate(K("configmaps"), new_cm, old_cm);
  EXPECT_EQ(s.message(),
            "ConfigMap \"cm\" is invalid: data: Forbidden: field is immutable when `immutable` is "
            "set");
  new_cm = old_cm;
  new_cm.erase("immutable");
  s = ValidateUpdate(K("configmaps"), new_cm, old_cm);
  EXPECT_EQ(s.causes()[0].field, "immutable");
  new_cm = old_cm;
  new_cm["metadata"]["labels"] = {{"a", "b"}};
  EXPECT_TRUE(ValidateUpdate(K("configmaps"), new_cm, old_cm).ok());
  json mutable_cm = ConfigMap({{"a", "1"}});
  json changed = ConfigMap({{"a", "2"}});
  EXPECT_TRUE(ValidateUpdate(K("configmaps"), changed, mutable_cm).ok());
}

TEST(NamespaceValidationTest, NameIsDnsLabel) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "a.b"}}}};
  Status s = ValidateCreate(K("namespaces"), ns);
  EXPECT_EQ(s.message(),
            "Namespace \"a.b\" is invalid: metadata.name: Invalid value: \"a.b\": must not "
            "contain dots");
  ns["metadata"]["name"] = "team-a";
  EXPECT_TRUE(ValidateCreate(K("namespaces"), ns).ok());
  ns["metadata"]["namespace"] = "x";
  s = ValidateCreate(K("namespaces"), ns);
  EXPECT_EQ(s.message(),
            "Namespace \"team-a\" is invalid: metadata.namespace: Forbidden: not allowed on this "
            "type");
  ns["metadata"].erase("namespace");
  ns["spec"] = {{"finalizers", {"kubernetes", "bogus"}}};
  s = ValidateCreate(K("namespaces"), ns);
  EXPECT_EQ(s.causes().size(), 1u);
  EXPECT_EQ(s.causes()[0].field, "spec.finalizers");
}

TEST(EventValidationTest, InvolvedObjectNamespaceMustMatch) {
  json ev = {{"apiVersion", "v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "e.1"}, {"namespace", "ns1"}}},
             {"involvedObject", {{"kind", "Lease"}, {"name", "l"}, {"namespace", "ns2"}}},
             {"reason", "LeaderElection"}};
  Status s = ValidateCreate(K("events"), ev);
  EXPECT_EQ(s.message(),
            "Event \"e.1\" is invalid: involvedObject.namespace: Invalid value: \"ns2\": does not "
            "match event.namespace");
  ev["involvedObject"]["namespace"] = "ns1";
  EXPECT_TRUE(ValidateCreate(K("events"), ev).ok());
  // Core v1 events do not check type or name format beyond path segments.
  ev["type"] = "Whatever";
  ev["metadata"]["name"] = "Lease_X.17a";
  EXPECT_TRUE(ValidateCreate(K("events"), ev).ok());
  ev["metadata"]["name"] = "a/b";
  s = ValidateCreate(K("events"), ev);
  EXPECT_EQ(s.message(),
            "Event \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": may not contain '/'");
}

TEST(EventValidationTest, NewStyleEventsNeedReportingFields) {
  json ev = {{"apiVersion", "v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "e"}, {"namespace", "ns1"}}},
             {"involvedObject", {{"kind", "Lease"}, {"name", "l"}, {"namespace", "ns1"}}},
             {"eventTime", "2024-01-01T00:00:00.000000Z"}};
  Status s = ValidateCreate(K("events"), ev);
  std::vector<std::string> fields;
  for (const auto& c : s.causes()) fields.push_back(c.field);
  // An empty reportingComponent is also not a qualified name, as in kube-apiserver.
  EXPECT_EQ(fields, (std::vector<std::string>{"reportingComponent", "reportingComponent",
                                              "reportingComponent", "reportingInstance", "action",
                                              "reason"}));
  ev["reportingComponent"] = "tenure.dev/elector";
  ev["reportingInstance"] = "host-1";
  ev["action"] = "Acquire";
  ev["reason"] = "LeaderElection";
  EXPECT_TRUE(ValidateCreate(K("events"), ev).ok());
}

// The object fuzzer found ValidateUpdate calling the missing update hook of a create-only kind
// (the reviews, TokenRequest). Such a kind answers 405, as its update route does; every kind
// served for update has its hook.
TEST(KindValidationTest, EveryKindAnswersAnUpdateWithoutCrashing) {
  const json object = json::parse(R"({"metadata":{"name":"x","namespace":"default"}})");
  std::vector<const KindInfo*> kinds = AllKinds();
  kinds.insert(kinds.end(), SubresourceKinds().begin(), SubresourceKinds().end());
  for (const KindInfo* kind : kinds) {
    SCOPED_TRACE(kind->resource);
    const bool updatable =
        std::find(kind->verbs.begin(), kind->verbs.end(), "update") != kind->verbs.end();
    Status s = ValidateUpdate(*kind, object, object);
    if (updatable) {
      EXPECT_NE(s.code(), 405);
    } else {
      EXPECT_EQ(s.code(), 405);
      EXPECT_EQ(s.message(), "the server does not allow this method on the requested resource");
    }
  }
}

}  // namespace
}  // namespace tenure::api
