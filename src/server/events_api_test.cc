// Over the wire: events.k8s.io/v1 Events, stored as core/v1 Events as kube-apiserver does, so
// both APIs see the same objects and resourceVersions, each in its own form; the stricter
// validation of writes through events.k8s.io/v1; watches and Tables through it.
#include <gtest/gtest.h>

#include <string>

#include "server/test_server_fixture.h"

namespace tenure::server::testing {
namespace {

using nlohmann::json;

class EventsApiTest : public ServerFixture {
 protected:
  static constexpr const char* kEvents = "/apis/events.k8s.io/v1/namespaces/default/events";
  static constexpr const char* kCoreEvents = "/api/v1/namespaces/default/events";

  static json NewEvent(const std::string& name) {
    return {{"apiVersion", "events.k8s.io/v1"},
            {"kind", "Event"},
            {"metadata", {{"name", name}}},
            {"eventTime", "2026-12-03T07:00:00.123456Z"},
            {"reportingController", "example.com/elector"},
            {"reportingInstance", "elector-1"},
            {"action", "Elect"},
            {"reason", "BecameLeader"},
            {"type", "Normal"},
            {"regarding", {{"kind", "Lease"}, {"name", "lock"}, {"namespace", "default"}}},
            {"note", "node-a became leader"}};
  }
};

TEST_F(EventsApiTest, BothApisShareTheObjectsEachInItsOwnForm) {
  client::HttpConnection c(endpoint());
  int status = 0;
  json created = Call(c, "POST", kEvents, NewEvent("elected").dump(), &status);
  ASSERT_EQ(status, 201) << created.dump();
  EXPECT_EQ(created["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(created["note"], "node-a became leader");
  EXPECT_EQ(created["regarding"]["name"], "lock");
  EXPECT_EQ(created["reportingController"], "example.com/elector");
  EXPECT_FALSE(created.contains("message"));
  EXPECT_TRUE(created["deprecatedFirstTimestamp"].is_null());

  json core = Call(c, "GET", std::string(kCoreEvents) + "/elected", "", &status);
  ASSERT_EQ(status, 200) << core.dump();
  EXPECT_EQ(core["apiVersion"], "v1");
  EXPECT_EQ(core["message"], "node-a became leader");
  EXPECT_EQ(core["involvedObject"]["kind"], "Lease");
  EXPECT_EQ(core["reportingComponent"], "example.com/elector");
  EXPECT_EQ(core["eventTime"], "2026-12-03T07:00:00.123456Z");
  EXPECT_EQ(core["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  EXPECT_EQ(core["metadata"]["uid"], created["metadata"]["uid"]);

  // An Event written through core/v1 (a legacy recorder) reads through events.k8s.io/v1.
  json legacy = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", "legacy"}}},
      {"involvedObject", {{"kind", "ConfigMap"}, {"name", "cm"}, {"namespace", "default"}}},
      {"reason", "Renewed"},
      {"message", "renewed"},
      {"source", {{"component", "tenure"}}},
      {"count", 3},
      {"firstTimestamp", "2026-12-03T06:00:00Z"},
      {"lastTimestamp", "2026-12-03T07:00:00Z"},
      {"type", "Normal"}};
  Call(c, "POST", kCoreEvents, legacy.dump(), &status);
  ASSERT_EQ(status, 201);
  json converted = Call(c, "GET", std::string(kEvents) + "/legacy", "", &status);
  ASSERT_EQ(status, 200) << converted.dump();
  EXPECT_EQ(converted["note"], "renewed");
  EXPECT_EQ(converted["regarding"]["name"], "cm");
  EXPECT_EQ(converted["deprecatedSource"]["component"], "tenure");
  EXPECT_EQ(converted["deprecatedCount"], 3);
  EXPECT_EQ(converted["deprecatedFirstTimestamp"], "2026-12-03T06:00:00Z");
  EXPECT_TRUE(converted["eventTime"].is_null());
  EXPECT_FALSE(converted.contains("source"));

  json list = Call(c, "GET", kEvents, "", &status);
  ASSERT_EQ(status, 200);
  EXPECT_EQ(list["kind"], "EventList");
  EXPECT_EQ(list["apiVersion"], "events.k8s.io/v1");
  ASSERT_EQ(list["items"].size(), 2u);
  EXPECT_EQ(list["items"][0]["apiVersion"], "events.k8s.io/v1");

  // A patch through events.k8s.io/v1 patches that form.
  json patched =
      Call(c, "PATCH", std::string(kEvents) + "/elected",
           R"({"series":{"count":2,"lastObservedTime":"2026-12-03T07:01:00.000000Z"}})", &status);
  ASSERT_EQ(status, 200) << patched.dump();
  EXPECT_EQ(patched["series"]["count"], 2);
  EXPECT_EQ(Call(c, "GET", std::string(kCoreEvents) + "/elected", "")["series"]["count"], 2);
}

TEST_F(EventsApiTest, WritesThroughEventsV1AreValidatedStrictly) {
  client::HttpConnection c(endpoint());
  int status = 0;
  json no_time = NewEvent("no-time");
  no_time.erase("eventTime");
  no_time["deprecatedCount"] = 2;
  no_time["type"] = "Odd";
  json refused = Call(c, "POST", kEvents, no_time.dump(), &status);
  EXPECT_EQ(status, 422) << refused.dump();
  const std::string message = refused.value("message", "");
  EXPECT_NE(message.find("eventTime: Required value"), std::string::npos) << message;
  EXPECT_NE(message.find("type: Invalid value: \"\": has invalid value: Odd"), std::string::npos)
      << message;
  EXPECT_NE(message.find("count: Invalid value: \"\": needs to be unset"), std::string::npos)
      << message;

  json missing = NewEvent("missing");
  missing.erase("reportingController");
  refused = Call(c, "POST", kEvents, missing.dump(), &status);
  EXPECT_EQ(status, 422) << refused.dump();
  EXPECT_NE(refused.value("message", "").find("reportingController: Required value"),
            std::string::npos)
      << refused.dump();

  // What an Event says cannot change through events.k8s.io/v1.
  json created = Call(c, "POST", kEvents, NewEvent("fixed").dump(), &status);
  ASSERT_EQ(status, 201);
  created["note"] = "rewritten";
  refused = Call(c, "PUT", std::string(kEvents) + "/fixed", created.dump(), &status);
  EXPECT_EQ(status, 422) << refused.dump();
  EXPECT_NE(refused.value("message", "")
                .find("message: Invalid value: \"rewritten\": field is "
                      "immutable"),
            std::string::npos)
      << refused.dump();
}

TEST_F(EventsApiTest, TablesAreCoreEventsTables) {
  client::HttpConnection c(endpoint());
  int status = 0;
  Call(c, "POST", kEvents, NewEvent("tabled").dump(), &status);
  ASSERT_EQ(status, 201);
  auto h = headers();
  h[2].second = "application/json;as=Table;v=v1;g=meta.k8s.io";
  auto reply = c.Request("GET", kEvents, h, "", std::chrono::seconds(10));
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->status, 200) << reply->body;
  json table = json::parse(reply->body);
  EXPECT_EQ(table["columnDefinitions"][1]["name"], "Type");
  const json& cells = table["rows"][0]["cells"];
  EXPECT_EQ(cells[1], "Normal");
  EXPECT_EQ(cells[2], "BecameLeader");
  EXPECT_EQ(cells[3], "lease/lock");
  EXPECT_EQ(cells[6], "node-a became leader");
}

// events.k8s.io/v1 selected only on metadata; kube takes core/v1's field labels there too
// (involvedObject.*, reason, reportingComponent, source, type), matched on the stored core form.
TEST_F(EventsApiTest, FieldSelectorsAreCoreEventsOnes) {
  client::HttpConnection c(endpoint());
  int status = 0;
  ASSERT_EQ((Call(c, "POST", kEvents, NewEvent("about-lock").dump(), &status), status), 201);
  json other = NewEvent("about-other");
  other["regarding"]["name"] = "other";
  other["reason"] = "Elsewhere";
  ASSERT_EQ((Call(c, "POST", kEvents, other.dump(), &status), status), 201);
  for (const char* selector : {"involvedObject.name=lock", "reason=BecameLeader",
                               "reportingComponent=example.com/elector,involvedObject.name!=other",
                               "source=example.com/elector,type=Normal,reason!=Elsewhere"}) {
    json list = Call(c, "GET", std::string(kEvents) + "?fieldSelector=" + selector, "", &status);
    ASSERT_EQ(status, 200) << selector << ": " << list.dump();
    ASSERT_EQ(list["items"].size(), 1u) << selector << ": " << list.dump();
    EXPECT_EQ(list["items"][0]["metadata"]["name"], "about-lock") << selector;
  }
  json bad =
      Call(c, "GET", std::string(kEvents) + "?fieldSelector=regarding.name=lock", "", &status);
  EXPECT_EQ(status, 400) << bad.dump();
}

}  // namespace
}  // namespace tenure::server::testing
