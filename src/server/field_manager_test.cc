// FieldManager: managedFields of updates and applies as kube-apiserver writes them.
#include "server/field_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "api/client_json.h"
#include "api/kinds.h"
#include "tenure/fake_clock.h"

namespace tenure::server {
namespace {

using nlohmann::json;

json J(const char* text) { return json::parse(text); }

json LeaseConfig(const char* spec) {
  json config = J(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
                      "metadata":{"name":"l","namespace":"default"}})");
  config["spec"] = J(spec);
  return config;
}

class FieldManagerTest : public ::testing::Test {
 protected:
  FieldManager Leases(std::string subresource = "") {
    return FieldManager(api::LeaseKind(), "v1", std::move(subresource), {}, clock_);
  }
  // Stores the result as the live object would be (uid and all), as the server does.
  json Created(FieldManager& m, json object, std::string_view manager) {
    m.Update(m.EmptyObject(), object, manager);
    object["metadata"]["uid"] = "u-1";
    return object;
  }
  json Applied(FieldManager& m, const json& live, const json& config, std::string_view manager,
               bool force = false) {
    auto out = m.Apply(live, config, manager, force);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (!out.ok()) return live;
    json object = *out;
    object["metadata"]["uid"] = "u-1";
    return object;
  }
  static json Entries(const json& object) {
    return object["metadata"].value("managedFields", json::array());
  }
  static json FieldsOf(const json& object, const std::string& manager) {
    for (const json& e : Entries(object)) {
      if (e.value("manager", "") == manager) return e["fieldsV1"];
    }
    return nullptr;
  }

  FakeClock clock_;
};

TEST_F(FieldManagerTest, CreateRecordsTheUpdateOfItsManager) {
  FieldManager m = Leases();
  json object = LeaseConfig(R"({"holderIdentity":"a","leaseDurationSeconds":15})");
  object["metadata"]["labels"] = {{"app", "x"}};
  object = Created(m, object, "kubectl-create");
  json entries = Entries(object);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["manager"], "kubectl-create");
  EXPECT_EQ(entries[0]["operation"], "Update");
  EXPECT_EQ(entries[0]["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(entries[0]["fieldsType"], "FieldsV1");
  EXPECT_TRUE(entries[0]["time"].is_string());
  // spec is in the empty object already (a struct); labels are new, so their node is owned too.
  EXPECT_EQ(entries[0]["fieldsV1"], J(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},
      "f:spec":{"f:holderIdentity":{},"f:leaseDurationSeconds":{}}})"));
}

TEST_F(FieldManagerTest, ApplyCreatesAndOwnsExactlyWhatItSets) {
  FieldManager m = Leases();
  json object = Applied(m, m.EmptyObject(), LeaseConfig(R"({"holderIdentity":"a"})"), "mgrA");
  EXPECT_EQ(object["spec"]["holderIdentity"], "a");
  json entries = Entries(object);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["manager"], "mgrA");
  EXPECT_EQ(entries[0]["operation"], "Apply");
  EXPECT_EQ(entries[0]["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(entries[0]["fieldsV1"], J(R"({"f:spec":{"f:holderIdentity":{}}})"));
}

TEST_F(FieldManagerTest, ApplyOfAFieldAnotherManagerOwnsConflicts) {
  FieldManager m = Leases();
  json live = Applied(m, m.EmptyObject(), LeaseConfig(R"({"holderIdentity":"a"})"), "mgrA");
  auto out = m.Apply(live, LeaseConfig(R"({"holderIdentity":"b"})"), "mgrB", false);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().reason(), Reason::kConflict);
  EXPECT_EQ(out.status().message(),
            "Apply failed with 1 conflict: conflict with \"mgrA\": .spec.holderIdentity");
  ASSERT_EQ(out.status().causes().size(), 1u);
  EXPECT_EQ(out.status().causes()[0], (StatusCause{"FieldManagerConflict", "conflict with \"mgrA\"",
                                                   ".spec.holderIdentity"}));

  // The same value is shared, not a conflict.
  json shared = Applied(m, live, LeaseConfig(R"({"holderIdentity":"a"})"), "mgrB");
  EXPECT_EQ(FieldsOf(shared, "mgrA"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
  EXPECT_EQ(FieldsOf(shared, "mgrB"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
}

TEST_F(FieldManagerTest, ForceTakesTheFieldsOver) {
  FieldManager m = Leases();
  json live = Applied(m, m.EmptyObject(),
                      LeaseConfig(R"({"holderIdentity":"a","leaseDurationSeconds":10})"), "mgrA");
  json object = Applied(m, live, LeaseConfig(R"({"holderIdentity":"b"})"), "mgrB", true);
  EXPECT_EQ(object["spec"]["holderIdentity"], "b");
  EXPECT_EQ(FieldsOf(object, "mgrA"), J(R"({"f:spec":{"f:leaseDurationSeconds":{}}})"));
  EXPECT_EQ(FieldsOf(object, "mgrB"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
}

TEST_F(FieldManagerTest, FieldsAnApplierStopsApplyingAreRemovedUnlessOthersOwnThem) {
  FieldManager m = Leases();
  json live =
      Applied(m, m.EmptyObject(), LeaseConfig(R"({"holderIdentity":"a","leaseDurationSeconds":10,
                                      "leaseTransitions":2})"),
              "mgrA");
  live = Applied(m, live, LeaseConfig(R"({"leaseTransitions":2})"), "mgrB");
  json object = Applied(m, live, LeaseConfig(R"({"holderIdentity":"a"})"), "mgrA");
  EXPECT_EQ(object["spec"], J(R"({"holderIdentity":"a","leaseTransitions":2})"));
  EXPECT_EQ(FieldsOf(object, "mgrA"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
}

TEST_F(FieldManagerTest, AnUpdateTakesWhatItChangesAndTheApplierThenConflicts) {
  FieldManager m = Leases();
  json live = Applied(m, m.EmptyObject(),
                      LeaseConfig(R"({"holderIdentity":"a","leaseDurationSeconds":10})"), "mgrA");
  json edited = live;
  edited["spec"]["holderIdentity"] = "edited";
  m.Update(live, edited, "kubectl-edit");
  EXPECT_EQ(FieldsOf(edited, "mgrA"), J(R"({"f:spec":{"f:leaseDurationSeconds":{}}})"));
  EXPECT_EQ(FieldsOf(edited, "kubectl-edit"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
  auto out = m.Apply(edited, LeaseConfig(R"({"holderIdentity":"a","leaseDurationSeconds":10})"),
                     "mgrA", false);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using "
            "coordination.k8s.io/v1: .spec.holderIdentity");
}

TEST_F(FieldManagerTest, SeveralConflictsAreListedByManager) {
  FieldManager m = Leases();
  json live = Applied(m, m.EmptyObject(),
                      LeaseConfig(R"({"holderIdentity":"a","leaseDurationSeconds":10})"), "b");
  live = Applied(m, live, LeaseConfig(R"({"leaseTransitions":1})"), "a");
  auto out = m.Apply(
      live, LeaseConfig(R"({"holderIdentity":"x","leaseDurationSeconds":20,"leaseTransitions":3})"),
      "c", false);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "Apply failed with 3 conflicts: conflicts with \"a\":\n- .spec.leaseTransitions\n"
            "conflicts with \"b\":\n- .spec.holderIdentity\n- .spec.leaseDurationSeconds");
  EXPECT_EQ(out.status().causes().size(), 3u);
}

TEST_F(FieldManagerTest, ApplyBodiesOfAnotherKindOrWithManagedFieldsOrUnknownFieldsFail) {
  FieldManager m = Leases();
  json wrong = LeaseConfig("{}");
  wrong["kind"] = "ConfigMap";
  auto out = m.Apply(m.EmptyObject(), wrong, "a", false);
  EXPECT_EQ(out.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(out.status().message(), "invalid object type: coordination.k8s.io/v1, Kind=ConfigMap");

  json managed = LeaseConfig("{}");
  managed["metadata"]["managedFields"] = json::array();
  out = m.Apply(m.EmptyObject(), managed, "a", false);
  EXPECT_EQ(out.status().message(), "metadata.managedFields must be nil");

  out = m.Apply(m.EmptyObject(), LeaseConfig(R"({"holder":"a"})"), "a", false);
  EXPECT_EQ(out.status().reason(), Reason::kUnknown);  // a 500 without a reason, as kube
  EXPECT_EQ(out.status().message(),
            "failed to create typed patch object (default/l; coordination.k8s.io/v1, "
            "Kind=Lease): .spec.holder: field not declared in schema");
  out = m.Apply(m.EmptyObject(), LeaseConfig(R"({"leaseDurationSeconds":"x"})"), "a", false);
  EXPECT_EQ(out.status().message(),
            "failed to create typed patch object (default/l; coordination.k8s.io/v1, "
            "Kind=Lease): .spec.leaseDurationSeconds: expected numeric (int or float), got string");
}

TEST_F(FieldManagerTest, TheTimeMovesOnlyWhenTheManagerTakesFields) {
  FieldManager m = Leases();
  json live = Created(m, LeaseConfig(R"({"holderIdentity":"a"})"), "writer");
  const json created_time = Entries(live)[0]["time"];
  clock_.Advance(std::chrono::hours(1));
  json same = live;
  m.Update(live, same, "writer");
  EXPECT_EQ(Entries(same)[0]["time"], created_time);
  json changed = live;
  changed["spec"]["holderIdentity"] = "b";
  m.Update(live, changed, "writer");
  EXPECT_NE(Entries(changed)[0]["time"], created_time);
}

TEST_F(FieldManagerTest, ARenewalMovesOnlyItsOwnEntryAsTheFullComputationDoes) {
  FieldManager m = Leases();
  json live =
      Created(m, LeaseConfig(R"({"holderIdentity":"a","renewTime":"2026-01-01T00:00:00.000000Z"})"),
              "elector");
  live = Applied(m, live, LeaseConfig(R"({"leaseDurationSeconds":15})"), "operator");
  clock_.Advance(std::chrono::seconds(30));
  json renewal = live;
  renewal["spec"]["renewTime"] = "2026-01-01T00:00:30.000000Z";
  json as_stored = renewal;  // the shortcut: the entries as stored
  m.Update(live, as_stored, "elector");
  // The same entries in another order are decoded and computed in full.
  json reordered = renewal;
  std::swap(reordered["metadata"]["managedFields"][0], reordered["metadata"]["managedFields"][1]);
  m.Update(live, reordered, "elector");
  EXPECT_EQ(as_stored["metadata"]["managedFields"], reordered["metadata"]["managedFields"]);
  EXPECT_EQ(FieldsOf(as_stored, "elector"),
            J(R"({"f:spec":{"f:holderIdentity":{},"f:renewTime":{}}})"));
  // The elector's time moved and its entry now sorts after the operator's.
  json entries = Entries(as_stored);
  EXPECT_EQ(entries[1]["manager"], "elector");
  EXPECT_EQ(entries[1]["time"], "2026-01-01T00:00:30Z");

  // Writing a field the other manager owns takes it over (computed in full).
  json takeover = live;
  takeover["spec"]["leaseDurationSeconds"] = 20;
  m.Update(live, takeover, "elector");
  EXPECT_EQ(FieldsOf(takeover, "operator"), nullptr);
  EXPECT_EQ(
      FieldsOf(takeover, "elector"),
      J(R"({"f:spec":{"f:holderIdentity":{},"f:leaseDurationSeconds":{},"f:renewTime":{}}})"));
}

TEST_F(FieldManagerTest, AnEmptyListClearsTheEntriesAndUntrackedObjectsStayUntracked) {
  FieldManager m = Leases();
  json live = Created(m, LeaseConfig(R"({"holderIdentity":"a"})"), "writer");
  json cleared = live;
  cleared["metadata"]["managedFields"] = json::array();
  m.Update(live, cleared, "writer");
  EXPECT_FALSE(cleared["metadata"].contains("managedFields"));
  json changed = cleared;
  changed["spec"]["holderIdentity"] = "b";
  m.Update(cleared, changed, "writer");
  EXPECT_FALSE(changed["metadata"].contains("managedFields"));
  // The first apply gives what is there to "before-first-apply".
  json applied = Applied(m, changed, LeaseConfig(R"({"leaseDurationSeconds":5})"), "mgr");
  EXPECT_EQ(FieldsOf(applied, "before-first-apply"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
  EXPECT_EQ(FieldsOf(applied, "mgr"), J(R"({"f:spec":{"f:leaseDurationSeconds":{}}})"));
}

TEST_F(FieldManagerTest, ARequestWithoutManagedFieldsKeepsTheStoredOnes) {
  FieldManager m = Leases();
  json live = Created(m, LeaseConfig(R"({"holderIdentity":"a"})"), "writer");
  json sent = live;
  sent["metadata"].erase("managedFields");
  m.Update(live, sent, "writer");
  EXPECT_EQ(Entries(sent), Entries(live));
}

TEST_F(FieldManagerTest, MoreThanTenUpdateManagersAreMergedIntoAncientChanges) {
  FieldManager m = Leases();
  json live = Created(m, LeaseConfig(R"({"holderIdentity":"m0"})"), "m0");
  for (int i = 1; i <= 11; ++i) {
    clock_.Advance(std::chrono::seconds(2));
    json next = live;
    next["metadata"]["labels"]["l" + std::to_string(i)] = "v";
    m.Update(live, next, "m" + std::to_string(i));
    live = next;
  }
  json entries = Entries(live);
  ASSERT_EQ(entries.size(), 10u) << entries.dump(1);
  EXPECT_EQ(entries[0]["manager"], "ancient-changes") << entries.dump(1);
  EXPECT_EQ(entries[0]["fieldsV1"], J(R"({"f:metadata":{"f:labels":{".":{},"f:l1":{},"f:l2":{}}},
                  "f:spec":{"f:holderIdentity":{}}})"));
  // The bucket has the time of the newest entry merged into it (m2's, the 2nd advance).
  EXPECT_EQ(entries[0]["time"], "2026-01-01T00:00:04Z");
}

TEST_F(FieldManagerTest, SetsAndKeyedListsAreOwnedByItem) {
  FieldManager m = Leases();
  json config = LeaseConfig("{}");
  config["metadata"]["finalizers"] = {"x"};
  config["metadata"]["ownerReferences"] =
      J(R"([{"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"u1"}])");
  json object = Applied(m, m.EmptyObject(), config, "mgr");
  EXPECT_EQ(FieldsOf(object, "mgr"), J(R"({"f:metadata":{"f:finalizers":{"v:\"x\"":{}},
      "f:ownerReferences":{"k:{\"uid\":\"u1\"}":{}}},"f:spec":{}})"));
  // Another manager's item of the same set conflicts only on what it changes.
  json other = LeaseConfig("{}");
  other["metadata"]["finalizers"] = {"y"};
  object = Applied(m, object, other, "other");
  EXPECT_EQ(object["metadata"]["finalizers"], J(R"(["x","y"])"));
}

TEST_F(FieldManagerTest, KubectlMovesFromClientSideApplyWithoutConflicts) {
  FieldManager m = Leases();
  json object = LeaseConfig(R"({"holderIdentity":"a"})");
  json last = object;
  object["metadata"]["annotations"] = {
      {"kubectl.kubernetes.io/last-applied-configuration", last.dump() + "\n"}};
  json live = Created(m, object, "kubectl-client-side-apply");
  json applied = Applied(m, live, LeaseConfig(R"({"holderIdentity":"a"})"), "kubectl");
  EXPECT_EQ(FieldsOf(applied, "kubectl"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
  // And keeps the annotation in step for a later client-side apply.
  EXPECT_EQ(applied["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
            LeaseConfig(R"({"holderIdentity":"a"})").dump() + "\n");
  // Another manager still conflicts.
  EXPECT_FALSE(m.Apply(live, LeaseConfig(R"({"holderIdentity":"b"})"), "other", false).ok());
}

TEST_F(FieldManagerTest, NamespaceStatusIsOwnedByNoOne) {
  FieldManager m(api::NamespaceKind(), "v1", "", {"status"}, clock_);
  json ns = J(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"},
                  "status":{"phase":"Active"}})");
  m.Update(m.EmptyObject(), ns, "creator");
  EXPECT_FALSE(ns["metadata"].contains("managedFields"));
}

TEST_F(FieldManagerTest, ManagersAreNamedAfterTheUserAgentAndValidated) {
  EXPECT_EQ(ManagerOrUserAgent("", "kubectl/v1.33.0 (linux/amd64) kubernetes/abc"), "kubectl");
  EXPECT_EQ(ManagerOrUserAgent("mine", "kubectl/v1.33.0"), "mine");
  EXPECT_EQ(ManagerOrUserAgent("", "a\tb/c"), "ab");
  EXPECT_EQ(ManagerOrUserAgent("", std::string(200, 'x')), std::string(128, 'x'));
  EXPECT_TRUE(FieldManagerErrors("ok manager").empty());
  api::FieldErrors errs = FieldManagerErrors("a\x07");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].ToString(),
            "fieldManager: Invalid value: \"a\\a\": invalid character U+0007 (at position 1)");
  errs = FieldManagerErrors(std::string(129, 'x'));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].type, api::FieldError::Type::kTooLong);
}

TEST(FieldSetTest, RoundTripsThroughFieldsV1AndRejectsMalformedKeys) {
  json fields = J(R"({"f:metadata":{"f:labels":{".":{},"f:a":{}}},
                      "f:spec":{"f:holderIdentity":{}},"i:3":{},"x:unknown":{}})");
  auto set = FieldSet::FromJson(fields);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  fields.erase("x:unknown");
  EXPECT_EQ(set->ToJson(), fields);
  EXPECT_FALSE(FieldSet::FromJson(J(R"({"k:[1]":{}})")).ok());
  EXPECT_FALSE(FieldSet::FromJson(J(R"({"f":{}})")).ok());
  EXPECT_FALSE(FieldSet::FromJson(J(R"({"i:x":{}})")).ok());
  EXPECT_FALSE(FieldSet::FromJson(J("[]")).ok());
}

// Review findings: what the renewal shortcut must leave to the full computation, and entries
// and keys no request may use to exhaust the server.
TEST_F(FieldManagerTest, TheShortcutLeavesOtherVersionsToTheFullComputation) {
  FieldManager events(api::EventsV1EventKind(), "v1", "", {}, clock_);
  FieldManager core(api::EventKind(), "v1", "", {}, clock_);
  json event = J(R"({"apiVersion":"events.k8s.io/v1","kind":"Event",
      "metadata":{"name":"e","namespace":"default"},"eventTime":"2026-01-01T00:00:00.000000Z",
      "reportingController":"c","reportingInstance":"i","action":"A","reason":"R",
      "type":"Normal","regarding":{"kind":"Lease","name":"l"},"note":"x"})");
  events.Update(events.EmptyObject(), event, "A");
  event["metadata"]["uid"] = "u";
  json live = api::EventsV1EventKind().to_storage(event);  // as stored and read through core
  json counted = live;
  counted["count"] = 2;
  core.Update(live, counted, "B");
  live = counted;
  json without_message = live;
  without_message.erase("message");
  json as_stored = without_message;
  core.Update(live, as_stored, "B");
  json reordered = without_message;
  auto& entries = reordered["metadata"]["managedFields"];
  std::reverse(entries.begin(), entries.end());
  core.Update(live, reordered, "B");
  EXPECT_EQ(as_stored["metadata"]["managedFields"], reordered["metadata"]["managedFields"]);
  EXPECT_FALSE(FieldsOf(as_stored, "A")["f:note"].is_object()) << FieldsOf(as_stored, "A");
}

TEST_F(FieldManagerTest, TheShortcutLeavesNeverOwnedFieldsOfTheWritersEntryToTheFullComputation) {
  FieldManager m = Leases();
  json live = Created(m, LeaseConfig(R"({"holderIdentity":"a"})"), "writer");
  live["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z";
  live["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"] =
      J(R"({"f:creationTimestamp":{}})");
  json changed = live;
  changed["metadata"].erase("managedFields");
  changed["metadata"]["creationTimestamp"] = "2026-01-02T00:00:00Z";
  changed["spec"]["holderIdentity"] = "b";
  json as_stored = changed;
  m.Update(live, as_stored, "writer");
  json reordered = changed;
  reordered["metadata"]["managedFields"] = live["metadata"]["managedFields"];
  reordered["metadata"]["managedFields"][0]["fieldsV1"] =
      J(R"({"f:spec":{"f:holderIdentity":{}},"f:metadata":{"f:creationTimestamp":{}}})");
  m.Update(live, reordered, "writer");
  EXPECT_EQ(FieldsOf(as_stored, "writer"), FieldsOf(reordered, "writer"));
  EXPECT_EQ(FieldsOf(as_stored, "writer"), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
}

TEST_F(FieldManagerTest, KubectlsLastAppliedAnnotationIsLeftOutWhenTooLarge) {
  FieldManager m(api::ConfigMapKind(), "v1", "", {}, clock_);
  json small = J(R"({"apiVersion":"v1","kind":"ConfigMap",
                    "metadata":{"name":"c","namespace":"default"},"data":{"k":"v"}})");
  json live = small;
  live["metadata"]["annotations"] = {
      {"kubectl.kubernetes.io/last-applied-configuration", small.dump() + "\n"}};
  live = Created(m, live, "kubectl-client-side-apply");
  json large = small;
  large["data"]["k"] = std::string(300 * 1024, 'x');
  auto applied = m.Apply(live, large, "kubectl", /*force=*/true);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_FALSE((*applied)["metadata"]
                   .value("annotations", json::object())
                   .contains("kubectl.kubernetes.io/last-applied-configuration"));
}

TEST(FieldSetTest, KeysNestedBeyondTheBodyLimitAreRefusedAndNullIsAMember) {
  std::string deep = "v:" + std::string(api::kMaxJsonNesting + 1, '[') +
                     std::string(api::kMaxJsonNesting + 1, ']');
  EXPECT_FALSE(
      FieldSet::FromJson(json{{"f:metadata", {{"f:finalizers", {{deep, json::object()}}}}}}).ok());
  auto null_member = FieldSet::FromJson(J(R"({"f:spec":{"f:holderIdentity":null}})"));
  ASSERT_TRUE(null_member.ok());
  EXPECT_EQ(null_member->ToJson(), J(R"({"f:spec":{"f:holderIdentity":{}}})"));
}

// kube's IgnoreManagedFieldsTimestampsTransformer: a write that changes only the times of its
// managedFields (and names another resourceVersion) keeps live's times; any other change keeps
// the new ones.
TEST(KeepManagedFieldsTimesOfNoOpTest, OnlyAWriteThatChangesNothingElseKeepsLivesTimes) {
  const json live = json::parse(R"({"kind":"Lease","metadata":{"name":"l","resourceVersion":"5",
      "managedFields":[{"manager":"a","time":"2026-12-05T03:00:00Z","fieldsV1":{"f:spec":{}}},
                       {"manager":"b","fieldsV1":{}}]},
      "spec":{"holderIdentity":"x","renewTime":"2026-12-05T03:00:00.000000Z"}})");
  json same = live;
  same["metadata"]["resourceVersion"] = "6";
  same["metadata"]["managedFields"][0]["time"] = "2026-12-05T03:00:02Z";
  same["metadata"]["managedFields"][1]["time"] = "2026-12-05T03:00:02Z";
  json kept = same;
  KeepManagedFieldsTimesOfNoOp(live, kept);
  EXPECT_EQ(kept["metadata"]["managedFields"], live["metadata"]["managedFields"]);
  EXPECT_EQ(kept["metadata"]["resourceVersion"], "6");

  json without_version = same;
  without_version["metadata"].erase("resourceVersion");
  KeepManagedFieldsTimesOfNoOp(live, without_version);
  EXPECT_EQ(without_version["metadata"]["managedFields"], live["metadata"]["managedFields"]);

  // A renewal: the spec changed too. So did a label, a manager's fields, or a member's presence.
  auto changes = [&](const std::function<void(json&)>& change) {
    json object = same;
    change(object);
    json before = object;
    KeepManagedFieldsTimesOfNoOp(live, object);
    return object == before;
  };
  EXPECT_TRUE(changes([](json& o) { o["spec"]["renewTime"] = "2026-12-05T03:00:02.000000Z"; }));
  EXPECT_TRUE(changes([](json& o) { o["metadata"]["labels"]["x"] = "y"; }));
  EXPECT_TRUE(changes([](json& o) { o["metadata"]["managedFields"][1]["fieldsV1"]["f:x"] = {}; }));
  EXPECT_TRUE(changes([](json& o) { o["spec"].erase("holderIdentity"); }));
  EXPECT_TRUE(changes([](json& o) { o["status"] = json::object(); }));
  EXPECT_TRUE(changes([](json& o) { o["metadata"]["managedFields"][0].erase("manager"); }));
  EXPECT_FALSE(changes([](json&) {}));
}

}  // namespace
}  // namespace tenure::server
