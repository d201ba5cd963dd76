// Tests of Table columns and cells per kind, and of SelectableField for field selectors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/kinds.h"
#include "api/time.h"

namespace tenure::api {
namespace {

using nlohmann::json;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

const KindInfo& K(std::string_view resource) {
  for (const KindInfo* k : AllKinds()) {
    if (k->resource == resource) return *k;
  }
  std::abort();
}

const Timestamp kCreated = *ParseTime("2024-01-01T00:00:00Z");

std::vector<std::string> ColumnNames(const json& columns) {
  std::vector<std::string> names;
  for (const auto& c : columns) names.push_back(c["name"]);
  return names;
}

TEST(TableTest, ColumnsPerKind) {
  EXPECT_EQ(ColumnNames(TableColumns(K("leases"))),
            (std::vector<std::string>{"Name", "Holder", "Age"}));
  EXPECT_EQ(
      ColumnNames(TableColumns(K("leasecandidates"))),
      (std::vector<std::string>{"Name", "LeaseName", "BinaryVersion", "EmulationVersion", "Age"}));
  EXPECT_EQ(ColumnNames(TableColumns(K("configmaps"))),
            (std::vector<std::string>{"Name", "Data", "Age"}));
  EXPECT_EQ(ColumnNames(TableColumns(K("namespaces"))),
            (std::vector<std::string>{"Name", "Status", "Age"}));
  json events = TableColumns(K("events"));
  std::vector<std::string> shown;
  for (const auto& c : events) {
    if (c["priority"] == 0) shown.push_back(c["name"]);
  }
  EXPECT_EQ(shown, (std::vector<std::string>{"Last Seen", "Type", "Reason", "Object", "Message"}));
  const json name = TableColumns(K("leases"))[0];
  EXPECT_EQ(name["type"], "string");
  EXPECT_EQ(name["format"], "name");
  EXPECT_EQ(name["priority"], 0);
  EXPECT_TRUE(name["description"].is_string());
  EXPECT_EQ(TableColumns(K("leases"))[2]["format"], "");
}

TEST(TableTest, LeaseCells) {
  json lease = {{"metadata", {{"name", "l"}, {"creationTimestamp", "2024-01-01T00:00:00Z"}}},
                {"spec", {{"holderIdentity", "node-1"}}}};
  EXPECT_EQ(TableCells(K("leases"), lease, kCreated + minutes(5) + seconds(12)),
            json::array({"l", "node-1", "5m12s"}));
  lease["spec"] = json::object();
  lease["metadata"].erase("creationTimestamp");
  EXPECT_EQ(TableCells(K("leases"), lease, kCreated), json::array({"l", "", "<unknown>"}));
}

TEST(TableTest, CandidateConfigMapNamespaceCells) {
  json cand = {
      {"metadata", {{"name", "c"}, {"creationTimestamp", "2024-01-01T00:00:00Z"}}},
      {"spec", {{"leaseName", "l"}, {"binaryVersion", "1.33.0"}, {"emulationVersion", "1.32.0"}}}};
  EXPECT_EQ(TableCells(K("leasecandidates"), cand, kCreated + hours(51)),
            json::array({"c", "l", "1.33.0", "1.32.0", "2d3h"}));
  json cm = {{"metadata", {{"name", "cm"}, {"creationTimestamp", "2024-01-01T00:00:00Z"}}},
             {"data", {{"a", "1"}, {"b", "2"}}},
             {"binaryData", {{"c", "eA=="}}}};
  EXPECT_EQ(TableCells(K("configmaps"), cm, kCreated + seconds(45)), json::array({"cm", 3, "45s"}));
  json ns = {{"metadata", {{"name", "n"}, {"creationTimestamp", "2024-01-01T00:00:00Z"}}},
             {"status", {{"phase", "Active"}}}};
  EXPECT_EQ(TableCells(K("namespaces"), ns, kCreated + hours(24 * 10)),
            json::array({"n", "Active", "10d"}));
}

TEST(TableTest, EventCells) {
  json ev = {{"metadata", {{"name", "l.1"}, {"namespace", "ns"}}},
             {"involvedObject", {{"kind", "Lease"}, {"name", "my-lease"}}},
             {"reason", "LeaderElection"},
             {"message", " node-1 became leader \n"},
             {"type", "Normal"},
             {"source", {{"component", "tenure"}}},
             {"firstTimestamp", "2024-01-01T00:00:00Z"},
             {"lastTimestamp", "2024-01-01T00:01:00Z"},
             {"count", 2}};
  json cells = TableCells(K("events"), ev, kCreated + minutes(3));
  EXPECT_EQ(cells, json::array({"2m", "Normal", "LeaderElection", "lease/my-lease", "", "tenure",
                                "node-1 became leader", "3m", 2, "l.1"}));
  EXPECT_EQ(cells.size(), TableColumns(K("events")).size());
  ev.erase("lastTimestamp");
  ev.erase("firstTimestamp");
  ev.erase("count");
  ev["eventTime"] = "2024-01-01T00:00:30.000000Z";
  ev["reportingComponent"] = "ctrl";
  ev["reportingInstance"] = "host";
  ev["source"] = json::object();
  cells = TableCells(K("events"), ev, kCreated + minutes(3));
  EXPECT_EQ(cells[0], "2m30s");
  EXPECT_EQ(cells[5], "ctrl, host");
  EXPECT_EQ(cells[8], 1);
}

TEST(FieldSelectorTest, CommonFields) {
  json lease = {{"metadata", {{"name", "l"}, {"namespace", "ns"}}}, {"spec", json::object()}};
  EXPECT_EQ(*SelectableField(K("leases"), lease, "metadata.name"), "l");
  EXPECT_EQ(*SelectableField(K("leases"), lease, "metadata.namespace"), "ns");
  auto bad = SelectableField(K("leases"), lease, "spec.holderIdentity");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(bad.status().message(), "field label not supported: spec.holderIdentity");
}

TEST(FieldSelectorTest, KindSpecificFields) {
  json cand = {{"metadata", {{"name", "c"}}}, {"spec", {{"leaseName", "l"}}}};
  EXPECT_EQ(*SelectableField(K("leasecandidates"), cand, "spec.leaseName"), "l");
  EXPECT_FALSE(SelectableField(K("leases"), cand, "spec.leaseName").ok());
  json ns = {{"metadata", {{"name", "n"}}}, {"status", {{"phase", "Terminating"}}}};
  EXPECT_EQ(*SelectableField(K("namespaces"), ns, "status.phase"), "Terminating");
  json ev = {
      {"metadata", {{"name", "e"}}},
      {"involvedObject", {{"kind", "Lease"}, {"name", "l"}, {"namespace", "ns"}, {"uid", "u-1"}}},
      {"reason", "R"},
      {"type", "Warning"},
      {"reportingComponent", "rc"},
      {"source", json::object()}};
  EXPECT_EQ(*SelectableField(K("events"), ev, "involvedObject.kind"), "Lease");
  EXPECT_EQ(*SelectableField(K("events"), ev, "involvedObject.uid"), "u-1");
  EXPECT_EQ(*SelectableField(K("events"), ev, "involvedObject.fieldPath"), "");
  EXPECT_EQ(*SelectableField(K("events"), ev, "reason"), "R");
  EXPECT_EQ(*SelectableField(K("events"), ev, "type"), "Warning");
  EXPECT_EQ(*SelectableField(K("events"), ev, "source"), "rc");
  EXPECT_EQ(*SelectableField(K("events"), ev, "reportingComponent"), "rc");
  EXPECT_FALSE(SelectableField(K("events"), ev, "involvedObject.foo").ok());
  EXPECT_FALSE(SelectableField(K("events"), ev, "message").ok());
}

}  // namespace
}  // namespace tenure::api
