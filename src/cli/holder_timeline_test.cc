// Tests of HolderTimeline: renewals, hold and gap times, takeover after expiry, create, delete.
#include "cli/holder_timeline.h"

#include <gtest/gtest.h>

namespace tenure::cli {
namespace {

using namespace std::chrono_literals;
using Kind = HolderChange::Kind;

const api::Timestamp kT0 = api::Timestamp{} + 1700000000s;

api::Lease LeaseHeldBy(const std::string& holder, api::Timestamp renewed, int transitions = 0,
                       std::optional<api::Timestamp> acquired = std::nullopt) {
  api::Lease lease;
  lease.metadata.name = "l";
  lease.spec.holder_identity = holder;
  lease.spec.lease_duration_seconds = 3;
  lease.spec.renew_time = renewed;
  lease.spec.acquire_time = acquired ? acquired : renewed;
  lease.spec.lease_transitions = transitions;
  return lease;
}

TEST(HolderTimelineTest, FirstObservationStartsFromAcquireTime) {
  HolderTimeline timeline;
  auto c = timeline.Observe(kT0, LeaseHeldBy("a", kT0 - 1s, 2, kT0 - 12s));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, Kind::kInitial);
  EXPECT_EQ(c->to, "a");
  EXPECT_EQ(c->previous_for, 12s);
  EXPECT_FALSE(c->previous_for_is_lower_bound);
  EXPECT_EQ(DescribeChange(*c, Painter(false)),
            "holder a (holding for 12.00s, 2 transitions so far)");
}

TEST(HolderTimelineTest, RenewalsAreNotChanges) {
  HolderTimeline timeline;
  timeline.Observe(kT0, LeaseHeldBy("a", kT0));
  EXPECT_FALSE(timeline.Observe(kT0 + 1s, LeaseHeldBy("a", kT0 + 1s)));
  EXPECT_FALSE(timeline.Observe(kT0 + 2s, LeaseHeldBy("a", kT0 + 2s)));
}

TEST(HolderTimelineTest, ReleaseThenAcquireReportsHoldAndGap) {
  HolderTimeline timeline;
  timeline.Observe(kT0, LeaseHeldBy("a", kT0, 0, kT0));
  auto released = timeline.Observe(kT0 + 5s, LeaseHeldBy("", kT0 + 5s));
  ASSERT_TRUE(released);
  EXPECT_EQ(released->kind, Kind::kChanged);
  EXPECT_EQ(released->from, "a");
  EXPECT_EQ(released->to, "");
  EXPECT_EQ(released->previous_for, 5s);
  EXPECT_EQ(DescribeChange(*released, Painter(false)), "a -> <none>   a held it 5.00s; released");

  auto taken = timeline.Observe(kT0 + 5s + 4ms, LeaseHeldBy("b", kT0 + 5s + 4ms, 1));
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->previous_for, 4ms);
  EXPECT_EQ(taken->transitions, 1);
  EXPECT_EQ(DescribeChange(*taken, Painter(false)), "<none> -> b   after 4.0ms without a holder");
}

TEST(HolderTimelineTest, TakeoverAfterExpiryIsNamed) {
  HolderTimeline timeline;
  timeline.Observe(kT0, LeaseHeldBy("a", kT0, 0, kT0));
  // a's last renewal at kT0 + 1s; its 3 s lease expired at kT0 + 4s; b took it at kT0 + 4.2s.
  EXPECT_FALSE(timeline.Observe(kT0 + 1s, LeaseHeldBy("a", kT0 + 1s, 0, kT0)));
  auto c = timeline.Observe(kT0 + 4200ms, LeaseHeldBy("b", kT0 + 4200ms, 1));
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->taken_after_expiry);
  EXPECT_EQ(DescribeChange(*c, Painter(false)),
            "a -> b   a held it 4.20s; taken over after its lease expired");
}

TEST(HolderTimelineTest, DirectChangeBeforeExpiryIsNotATakeover) {
  HolderTimeline timeline;
  timeline.Observe(kT0, LeaseHeldBy("a", kT0, 0, kT0));
  auto c = timeline.Observe(kT0 + 1s, LeaseHeldBy("b", kT0 + 1s, 1));
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->taken_after_expiry);
  EXPECT_EQ(DescribeChange(*c, Painter(false)), "a -> b   a held it 1.00s");
}

TEST(HolderTimelineTest, UnknownStartIsALowerBound) {
  HolderTimeline timeline;
  api::Lease lease = LeaseHeldBy("a", kT0);
  lease.spec.acquire_time.reset();
  auto first = timeline.Observe(kT0, lease);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->previous_for_is_lower_bound);
  auto c = timeline.Observe(kT0 + 2s, LeaseHeldBy("b", kT0 + 2s));
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->previous_for_is_lower_bound);
  EXPECT_EQ(DescribeChange(*c, Painter(false)), "a -> b   a held it at least 2.00s");
}

TEST(HolderTimelineTest, MissingCreatedAndDeleted) {
  HolderTimeline timeline;
  auto missing = timeline.Observe(kT0, std::nullopt);
  ASSERT_TRUE(missing);
  EXPECT_EQ(DescribeChange(*missing, Painter(false)), "lease does not exist (yet)");
  auto created = timeline.Observe(kT0 + 1s, LeaseHeldBy("a", kT0 + 1s));
  ASSERT_TRUE(created);
  EXPECT_EQ(created->kind, Kind::kCreated);
  EXPECT_EQ(DescribeChange(*created, Painter(false)), "lease created, holder a");
  auto deleted = timeline.Observe(kT0 + 3s, std::nullopt);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->kind, Kind::kDeleted);
  EXPECT_FALSE(deleted->exists);
  EXPECT_EQ(DescribeChange(*deleted, Painter(false)), "lease deleted (a held it 2.00s)");
  EXPECT_FALSE(timeline.Observe(kT0 + 4s, std::nullopt));
}

TEST(HolderTimelineTest, FormatChangePrefixesTheTimeOfDay) {
  HolderTimeline timeline;
  auto c = timeline.Observe(kT0, LeaseHeldBy("", kT0));
  ASSERT_TRUE(c);
  std::string line = FormatChange(*c, Painter(false));
  EXPECT_EQ(line.substr(12), "  no holder (0 transitions so far)");
  EXPECT_EQ(line.substr(0, 12), TimeOfDay(kT0));
}

}  // namespace
}  // namespace tenure::cli
