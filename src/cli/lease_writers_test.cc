// Tests of LeaseWritesIn: which audit events count as writes of a lease, and what they show.
#include "cli/lease_writers.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tenure::cli {
namespace {

using nlohmann::json;

std::string Event(const std::string& verb, int code, const std::string& name = "lock",
                  json extra = json::object()) {
  json e = {{"kind", "Event"},
            {"apiVersion", "audit.k8s.io/v1"},
            {"stage", "ResponseComplete"},
            {"stageTimestamp", "2026-12-02T10:00:00.000001Z"},
            {"verb", verb},
            {"user", {{"username", "alice"}}},
            {"objectRef",
             {{"resource", "leases"},
              {"apiGroup", "coordination.k8s.io"},
              {"namespace", "default"},
              {"name", name}}},
            {"responseStatus", {{"code", code}}}};
  e.update(extra);
  return e.dump();
}

TEST(LeaseWritersTest, SuccessfulWritesOfTheLeaseOnly) {
  std::vector<std::string> lines = {
      Event("update", 200, "lock", {{"requestObject", {{"spec", {{"holderIdentity", "a"}}}}}}),
      Event("get", 200),              // a read
      Event("update", 409),           // a failed write
      Event("update", 200, "other"),  // another lease
      "not json",
      Event("patch", 200, "lock",
            {{"impersonatedUser", {{"username", "bob"}}},
             {"requestObject", {{"spec", {{"holderIdentity", ""}}}}}}),
      Event("delete", 200, "lock", {{"stage", "RequestReceived"}}),  // not the final stage
      Event("delete", 200),
  };
  std::vector<LeaseWrite> writes = LeaseWritesIn(lines, "default", "lock");
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[0].user, "alice");
  EXPECT_EQ(writes[0].verb, "update");
  EXPECT_EQ(writes[0].holder, "a");
  EXPECT_EQ(writes[1].user, "bob");  // the impersonated user acted
  EXPECT_EQ(writes[1].holder, "");   // released
  EXPECT_EQ(writes[2].verb, "delete");
  EXPECT_FALSE(writes[2].holder.has_value());  // no body recorded
  EXPECT_TRUE(LeaseWritesIn(lines, "other-ns", "lock").empty());
}

}  // namespace
}  // namespace tenure::cli
