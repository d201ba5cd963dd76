// Tests of the Lease view helpers: held, expired and holderless leases, missing times.
#include "cli/lease_view.h"

#include <gtest/gtest.h>

namespace tenure::cli {
namespace {

using namespace std::chrono_literals;

const api::Timestamp kNow = api::Timestamp{} + 1700000000s;

api::Lease Lease(std::optional<std::string> holder, std::optional<api::Timestamp> renewed,
                 std::optional<int32_t> duration) {
  api::Lease lease;
  lease.spec.holder_identity = holder;
  lease.spec.renew_time = renewed;
  lease.spec.lease_duration_seconds = duration;
  return lease;
}

TEST(LeaseViewTest, HeldLease) {
  api::Lease lease = Lease("a", kNow - 2s, 15);
  EXPECT_EQ(ExpiryOf(lease), kNow + 13s);
  EXPECT_TRUE(IsHeld(lease, kNow));
  EXPECT_EQ(HolderText(lease), "a");
  EXPECT_EQ(HolderColor(lease, kNow), Color::kGreen);
  EXPECT_EQ(ExpiresText(lease, kNow), "in 13s");
  EXPECT_EQ(LeaseDurationText(lease), "15s");
}

TEST(LeaseViewTest, ExpiredHolder) {
  api::Lease lease = Lease("a", kNow - 20s, 15);
  EXPECT_FALSE(IsHeld(lease, kNow));
  EXPECT_EQ(HolderColor(lease, kNow), Color::kYellow);
  EXPECT_EQ(ExpiresText(lease, kNow), "expired 5s ago");
}

TEST(LeaseViewTest, NoHolder) {
  for (const auto& holder : {std::optional<std::string>(), std::optional<std::string>("")}) {
    api::Lease lease = Lease(holder, kNow, 1);
    EXPECT_FALSE(IsHeld(lease, kNow));
    EXPECT_EQ(HolderText(lease), "<none>");
    EXPECT_EQ(HolderColor(lease, kNow), Color::kDim);
    EXPECT_EQ(ExpiresText(lease, kNow), "<none>");
  }
}

TEST(LeaseViewTest, MissingTimesFallBackToAcquireTimeOrUnknown) {
  api::Lease lease = Lease("a", std::nullopt, 10);
  EXPECT_EQ(ExpiryOf(lease), std::nullopt);
  EXPECT_TRUE(IsHeld(lease, kNow));  // nothing says it expired
  EXPECT_EQ(ExpiresText(lease, kNow), "<unknown>");
  lease.spec.acquire_time = kNow - 4s;
  EXPECT_EQ(ExpiresText(lease, kNow), "in 6s");
  lease.spec.lease_duration_seconds.reset();
  EXPECT_EQ(LeaseDurationText(lease), "<none>");
}

}  // namespace
}  // namespace tenure::cli
