// StatusOf: each state a Lease can be in, and the times the dashboard counts from.
#include "dashboard/lease_status.h"

#include <gtest/gtest.h>

namespace tenure::dashboard {
namespace {

const api::Timestamp kT0 = api::Timestamp{} + std::chrono::hours(24 * 365 * 50);

api::LeaseSpec Held(std::string holder, int renewed_at, int duration = 15) {
  api::LeaseSpec spec;
  spec.holder_identity = std::move(holder);
  spec.acquire_time = kT0;
  spec.renew_time = kT0 + std::chrono::seconds(renewed_at);
  spec.lease_duration_seconds = duration;
  return spec;
}

TEST(LeaseStatusTest, HeldThenExpiringSoonThenExpired) {
  auto spec = Held("a", 10);
  auto at = [&](int s) { return StatusOf(spec, kT0 + std::chrono::seconds(s)).state; };
  EXPECT_EQ(at(11), LeaseState::kHeld);
  EXPECT_EQ(at(19), LeaseState::kHeld);
  EXPECT_EQ(at(20), LeaseState::kExpiringSoon);  // 5 s of 15 left
  EXPECT_EQ(at(24), LeaseState::kExpiringSoon);
  EXPECT_EQ(at(25), LeaseState::kExpired);
  LeaseStatus status = StatusOf(spec, kT0);
  EXPECT_EQ(status.expires, kT0 + std::chrono::seconds(25));
  EXPECT_EQ(status.last_renewal, kT0 + std::chrono::seconds(10));
  EXPECT_EQ(LeaseStateName(LeaseState::kExpiringSoon), "expiring");
}

TEST(LeaseStatusTest, TheNextStateChangeIsWhenItStartsExpiringThenWhenItExpires) {
  auto spec = Held("a", 10);
  auto next = [&](int s) { return NextStateChange(spec, kT0 + std::chrono::seconds(s)); };
  EXPECT_EQ(next(11), kT0 + std::chrono::seconds(20));
  EXPECT_EQ(next(20), kT0 + std::chrono::seconds(25));
  EXPECT_EQ(next(25), std::nullopt);
  spec.holder_identity = "";
  EXPECT_EQ(next(11), std::nullopt);
  // Wherever a change is announced, StatusOf agrees: the state differs just before and at it.
  spec = Held("a", 10);
  for (int s : {11, 20}) {
    auto at = *next(s);
    EXPECT_NE(StatusOf(spec, at - std::chrono::microseconds(1)).state, StatusOf(spec, at).state);
  }
}

TEST(LeaseStatusTest, NoHolderIsReleasedAndAnotherPreferredHolderIsPending) {
  auto spec = Held("", 10);
  EXPECT_EQ(StatusOf(spec, kT0).state, LeaseState::kReleased);
  spec = Held("a", 10);
  spec.preferred_holder = "b";
  EXPECT_EQ(StatusOf(spec, kT0 + std::chrono::seconds(11)).state, LeaseState::kPreferredPending);
  EXPECT_EQ(StatusOf(spec, kT0 + std::chrono::seconds(30)).state, LeaseState::kExpired);
  spec.preferred_holder = "a";
  EXPECT_EQ(StatusOf(spec, kT0 + std::chrono::seconds(11)).state, LeaseState::kHeld);
}

TEST(LeaseStatusTest, AHolderWithoutTimesIsHeldAndNeverRenewedCountsFromAcquireTime) {
  api::LeaseSpec spec;
  spec.holder_identity = "a";
  LeaseStatus status = StatusOf(spec, kT0);
  EXPECT_EQ(status.state, LeaseState::kHeld);
  EXPECT_FALSE(status.expires);
  spec.acquire_time = kT0;
  spec.lease_duration_seconds = 15;
  EXPECT_EQ(StatusOf(spec, kT0 + std::chrono::seconds(16)).state, LeaseState::kExpired);
}

}  // namespace
}  // namespace tenure::dashboard
