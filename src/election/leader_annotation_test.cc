// Tests of the leader annotation: client-go and Python client formats, microseconds, garbage.
#include "election/leader_annotation.h"

#include <gtest/gtest.h>

#include "api/time.h"

namespace tenure {
namespace {

TEST(LeaderAnnotationTest, ReadsClientGoFormat) {
  LeaderElectionRecord r = ParseLeaderAnnotation(
      R"({"holderIdentity":"pod-a","leaseDurationSeconds":15,"acquireTime":"2024-01-01T00:00:00Z","renewTime":"2024-01-01T00:00:10Z","leaderTransitions":3})");
  EXPECT_EQ(r.holder_identity, "pod-a");
  EXPECT_EQ(r.lease_duration_seconds, 15);
  EXPECT_EQ(r.acquire_time, *api::ParseTime("2024-01-01T00:00:00Z"));
  EXPECT_EQ(r.renew_time, *api::ParseTime("2024-01-01T00:00:10Z"));
  EXPECT_EQ(r.leader_transitions, 3);
}

TEST(LeaderAnnotationTest, WritesMicrosecondsSoEveryRenewalChangesTheRecord) {
  LeaderElectionRecord r;
  r.holder_identity = "pod-a";
  r.lease_duration_seconds = 15;
  r.acquire_time = *api::ParseTime("2024-01-01T00:00:00Z");
  r.renew_time = *api::ParseTime("2024-01-01T00:00:10.250000Z");
  r.leader_transitions = 3;
  std::string text = FormatLeaderAnnotation(r);
  EXPECT_NE(text.find("\"renewTime\":\"2024-01-01T00:00:10.250000Z\""), std::string::npos) << text;
  EXPECT_EQ(ParseLeaderAnnotation(text), r);
  // A renewal 250 ms later, within the same second, is a different record.
  LeaderElectionRecord next = r;
  next.renew_time += std::chrono::milliseconds(250);
  EXPECT_NE(FormatLeaderAnnotation(next), text);
}

TEST(LeaderAnnotationTest, ReadsThePythonClientsNonStandardRecord) {
  LeaderElectionRecord r = ParseLeaderAnnotation(
      R"({"holderIdentity": "py-1", "leaseDurationSeconds": "17", "acquireTime": "2026-11-29 23:05:24.543753", "renewTime": "2026-11-29 23:05:30.000001", "leaderTransitions": 2})");
  EXPECT_EQ(r.holder_identity, "py-1");
  EXPECT_EQ(r.lease_duration_seconds, 17);
  EXPECT_EQ(r.leader_transitions, 2);
  EXPECT_EQ(api::FormatMicroTime(r.acquire_time), "2026-11-29T23:05:24.543753Z");
  EXPECT_EQ(api::FormatMicroTime(r.renew_time), "2026-11-29T23:05:30.000001Z");
}

TEST(LeaderAnnotationTest, EmptyOrGarbageMeansNoHolder) {
  EXPECT_EQ(ParseLeaderAnnotation("").holder_identity, "");
  EXPECT_EQ(ParseLeaderAnnotation("{not json").holder_identity, "");
  EXPECT_EQ(ParseLeaderAnnotation("[]").lease_duration_seconds, 0);
}

}  // namespace
}  // namespace tenure
