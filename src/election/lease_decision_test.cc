// Tests of the election's rules (lease_decision.h) on their own: no lock, no clock, no threads.
#include "election/lease_decision.h"

#include <gtest/gtest.h>

namespace tenure::election {
namespace {

using namespace std::chrono_literals;

const Clock::TimePoint kT0 = Clock::TimePoint() + 1000s;
const Clock::WallTime kWall = Clock::WallTime() + 1'700'000'000s;

Rules Me(bool coordinated = false) {
  Rules rules;
  rules.identity = "me";
  rules.coordinated = coordinated;
  rules.lease_duration = 15s;
  rules.usable_lease = 14'750ms;
  return rules;
}

LeaderElectionRecord Held(const std::string& holder, int seconds = 15) {
  LeaderElectionRecord record;
  record.holder_identity = holder;
  record.lease_duration_seconds = seconds;
  record.acquire_time = record.renew_time = kWall - 100s;
  record.leader_transitions = 4;
  return record;
}

ElectorView Seeing(const LeaderElectionRecord& record, int64_t version = 10,
                   Clock::TimePoint at = kT0) {
  ElectorView view;
  view.seen = Sighting{{record, "raw-" + std::to_string(version), version}, at};
  return view;
}

TEST(LeaseDecisionTest, RulesComeFromTheConfigInOneDurationUnit) {
  ElectionConfig config;
  config.lease_duration = 10s;
  config.max_clock_rate_drift = 0.25;
  config.safety_margin = 300ms;
  config.coordinated = true;
  Rules rules = Rules::Of(config);
  EXPECT_EQ(rules.lease_duration, 10s);
  EXPECT_EQ(rules.usable_lease, 7'200ms);  // 10 s x 0.75 - 0.3 s
  EXPECT_TRUE(rules.coordinated);
  EXPECT_EQ(rules.identity, "");  // no lock yet
}

TEST(LeaseDecisionTest, TheRecordsSecondsAreConvertedInOnePlace) {
  EXPECT_EQ(RecordedLeaseDuration(Held("x", 7)), 7s);
  EXPECT_EQ(LeaseDurationSeconds(15s), 15);
  EXPECT_EQ(LeaseDurationSeconds(500ms), 1);  // never 0: others would take it at once
}

TEST(LeaseDecisionTest, ALeaseExpiresItsDurationAfterItWasObservedNotAfterItsRenewTime) {
  ElectorView view = Seeing(Held("other", 15), 10, kT0);
  EXPECT_EQ(ExpiresAt(*view.seen), kT0 + 15s);
  EXPECT_TRUE(ValidlyHeld(view, kT0 + 14'999ms));
  EXPECT_FALSE(ValidlyHeld(view, kT0 + 15s));
  EXPECT_TRUE(HeldByOther(view, Me(), kT0 + 1s));
  EXPECT_FALSE(HeldByOther(Seeing(Held("me")), Me(), kT0 + 1s));
  EXPECT_FALSE(ValidlyHeld(Seeing(Held("")), kT0));  // released
  EXPECT_FALSE(ValidlyHeld(ElectorView{}, kT0));     // never seen
}

TEST(LeaseDecisionTest, AWatchingFollowerWaitsUntilExpiryAndAPollingOneAttempts) {
  ElectorView view = Seeing(Held("other", 15), 10, kT0);
  FollowerStep watching = NextFollowerStep(view, Me(), kT0 + 2s, true);
  EXPECT_FALSE(watching.attempt);
  EXPECT_EQ(watching.until, kT0 + 15s);
  EXPECT_TRUE(NextFollowerStep(view, Me(), kT0 + 2s, false).attempt);
  EXPECT_TRUE(NextFollowerStep(view, Me(), kT0 + 15s, true).attempt);  // expired
  EXPECT_TRUE(NextFollowerStep(Seeing(Held("")), Me(), kT0, true).attempt);
}

TEST(LeaseDecisionTest, AWaitingFollowerWakesOnlyForAChangeThatBringsItsNextStepSooner) {
  // It waits until kT0 + 15 s, when the lease it saw at kT0 runs out.
  Clock::TimePoint waiting_until = kT0 + 15s;
  // The holder renewed, seen at kT0 + 2 s: the expiry moves later, nothing to do sooner.
  EXPECT_FALSE(
      FollowerWakesFor(Seeing(Held("other"), 11, kT0 + 2s), Me(), kT0 + 2s, waiting_until));
  // Released, taken by another with a 5 s lease, or taken by this candidate elsewhere: sooner.
  EXPECT_TRUE(FollowerWakesFor(Seeing(Held(""), 11, kT0 + 2s), Me(), kT0 + 2s, waiting_until));
  EXPECT_TRUE(
      FollowerWakesFor(Seeing(Held("third", 5), 11, kT0 + 2s), Me(), kT0 + 2s, waiting_until));
  EXPECT_TRUE(FollowerWakesFor(Seeing(Held("me"), 11, kT0 + 2s), Me(), kT0 + 2s, waiting_until));
  // Seen when the wait is over anyway.
  EXPECT_TRUE(
      FollowerWakesFor(Seeing(Held("other"), 11, kT0 - 16s), Me(), kT0 + 2s, waiting_until));
}

TEST(LeaseDecisionTest, TheLeaderMustStopItsUsableLeaseAfterItsLastRenewalWasSent) {
  ElectorView view;
  view.last_renew_sent = kT0;
  EXPECT_EQ(MustStopBy(view, Me()), kT0 + 14'750ms);
  // An attempt gets what is left until the earlier of the renew deadline and the stop deadline.
  EXPECT_EQ(RenewalAttemptBudget(kT0 + 10s, kT0 + 20s, kT0 + 14'750ms), 4'750ms);
  EXPECT_EQ(RenewalAttemptBudget(kT0 + 10s, kT0 + 12s, kT0 + 14'750ms), 2s);
  EXPECT_LE(RenewalAttemptBudget(kT0 + 15s, kT0 + 20s, kT0 + 14'750ms), 0s);
}

TEST(LeaseDecisionTest, OnlyALaterRecordNamingAnotherHolderOrPreferringAnotherEndsTheTerm) {
  ElectorView view = Seeing(Held("me"), 10);
  view.leading = true;
  view.own_version = 10;
  ObservedRecord given{Held("other"), "raw", 11};
  EXPECT_EQ(EndsTerm(given, view, Me()), TermEnd::kGivenAway);
  given.version = 10;  // not after our own write: an old event
  EXPECT_EQ(EndsTerm(given, view, Me()), TermEnd::kNone);

  LeaderElectionRecord preferring = Held("me");
  preferring.preferred_holder = "other";
  ObservedRecord preferred{preferring, "raw", 12};
  EXPECT_EQ(EndsTerm(preferred, view, Me(false)), TermEnd::kNone);  // not coordinated
  EXPECT_EQ(EndsTerm(preferred, view, Me(true)), TermEnd::kPreempted);
  view.draining = true;  // the term has ended already and renews until its work stopped
  EXPECT_EQ(EndsTerm(preferred, view, Me(true)), TermEnd::kNone);
  view.leading = false;
  EXPECT_EQ(EndsTerm(ObservedRecord{Held("other"), "raw", 13}, view, Me()), TermEnd::kNone);
}

TEST(LeaseDecisionTest, TheFastPathNeedsAValidCachedRecordNamingTheLeader) {
  ElectorView view = Seeing(Held("me"), 10, kT0);
  EXPECT_FALSE(MayRenewFromCache(view, Me(), kT0 + 1s));  // not leading
  view.leading = true;
  EXPECT_TRUE(MayRenewFromCache(view, Me(), kT0 + 1s));
  EXPECT_FALSE(MayRenewFromCache(view, Me(), kT0 + 15s));  // what we saw has run out
  EXPECT_FALSE(MayRenewFromCache(Seeing(Held("other")), Me(), kT0));
  LeaderElectionRecord preferring = Held("me");
  preferring.preferred_holder = "other";
  ElectorView preempted = Seeing(preferring);
  preempted.leading = true;
  EXPECT_FALSE(MayRenewFromCache(preempted, Me(true), kT0));
  preempted.draining = true;
  EXPECT_TRUE(MayRenewFromCache(preempted, Me(true), kT0));
}

TEST(LeaseDecisionTest, AcquiringCountsATransitionAndRenewingKeepsTheTerm) {
  LeaderElectionRecord created = AcquireOrRenewRecord(nullptr, Me(), kWall);
  EXPECT_EQ(created.holder_identity, "me");
  EXPECT_EQ(created.lease_duration_seconds, 15);
  EXPECT_EQ(created.acquire_time, kWall);
  EXPECT_EQ(created.renew_time, kWall);
  EXPECT_EQ(created.leader_transitions, 0);

  LeaderElectionRecord other = Held("other", 30);
  LeaderElectionRecord taken = AcquireOrRenewRecord(&other, Me(), kWall);
  EXPECT_EQ(taken.leader_transitions, 5);
  EXPECT_EQ(taken.acquire_time, kWall);
  EXPECT_EQ(taken.lease_duration_seconds, 15);  // ours, not theirs

  LeaderElectionRecord mine = Held("me");
  LeaderElectionRecord renewed = AcquireOrRenewRecord(&mine, Me(), kWall);
  EXPECT_EQ(renewed.leader_transitions, 4);
  EXPECT_EQ(renewed.acquire_time, mine.acquire_time);
  EXPECT_EQ(renewed.renew_time, kWall);
}

TEST(LeaseDecisionTest, AHeldRenewalKeepsTheControllersFieldsAndStopsWhenPreempted) {
  LeaderElectionRecord assigned = Held("me", 5);
  assigned.strategy = "OldestEmulationVersion";
  ElectorView view = Seeing(assigned, 10, kT0);
  view.leading = true;
  HeldRenewal renewal = RenewHeld(assigned, view, Me(true), kT0 + 1s, kWall);
  ASSERT_TRUE(renewal.write);
  EXPECT_FALSE(renewal.preempted);
  EXPECT_EQ(renewal.write->strategy, "OldestEmulationVersion");
  EXPECT_EQ(renewal.write->leader_transitions, 4);
  EXPECT_EQ(renewal.write->lease_duration_seconds, 15);  // our duration, as client-go writes
  EXPECT_EQ(renewal.write->renew_time, kWall);

  EXPECT_FALSE(RenewHeld(assigned, view, Me(true), kT0 + 5s, kWall).write);  // run out
  EXPECT_FALSE(RenewHeld(Held("other"), Seeing(Held("other")), Me(true), kT0, kWall).write);

  assigned.preferred_holder = "other";
  ElectorView preferring = Seeing(assigned, 11, kT0);
  preferring.leading = true;
  HeldRenewal preempted = RenewHeld(assigned, preferring, Me(true), kT0, kWall);
  EXPECT_FALSE(preempted.write);
  EXPECT_TRUE(preempted.preempted);
  preferring.draining = true;  // a draining leader renews until its work stopped
  EXPECT_TRUE(RenewHeld(assigned, preferring, Me(true), kT0, kWall).write);
}

TEST(LeaseDecisionTest, OnlyOurOwnLeaseIsReleasedAndTheControllersFieldsStay) {
  EXPECT_FALSE(ReleaseRecord(Held("other"), Me(), kWall));
  LeaderElectionRecord mine = Held("me");
  mine.strategy = "OldestEmulationVersion";
  mine.preferred_holder = "next";
  auto released = ReleaseRecord(mine, Me(false), kWall);
  ASSERT_TRUE(released);
  EXPECT_EQ(released->holder_identity, "");
  EXPECT_EQ(released->lease_duration_seconds, 1);
  EXPECT_EQ(released->leader_transitions, 4);
  EXPECT_EQ(released->renew_time, kWall);
  EXPECT_EQ(released->strategy, "");
  auto coordinated = ReleaseRecord(mine, Me(true), kWall);
  ASSERT_TRUE(coordinated);
  EXPECT_EQ(coordinated->strategy, "OldestEmulationVersion");
  EXPECT_EQ(coordinated->preferred_holder, "next");
}

TEST(LeaseDecisionTest, OnlyAWriteThatChangedTheBytesMovesTheStopDeadline) {
  ObservedRecord before{Held("me"), "same", 10};
  ObservedRecord unchanged{Held("me"), "same", 10};
  ObservedRecord changed{Held("me"), "other bytes", 11};
  EXPECT_TRUE(RestartsOthersCount(nullptr, unchanged));
  EXPECT_FALSE(RestartsOthersCount(&before, unchanged));
  EXPECT_TRUE(RestartsOthersCount(&before, changed));
}

TEST(LeaseDecisionTest, TheControllerPrefersAnotherOnlyInCoordinatedModeAndNotWhileDraining) {
  LeaderElectionRecord preferring = Held("me");
  preferring.strategy = "OldestEmulationVersion";
  preferring.preferred_holder = "other";
  ElectorView view = Seeing(preferring);
  EXPECT_TRUE(ControllerPrefersAnother(preferring, view, Me(true)));
  EXPECT_FALSE(ControllerPrefersAnother(preferring, view, Me(false)));
  EXPECT_FALSE(ControllerPrefersAnother(Held("me"), view, Me(true)));  // no preferredHolder
  view.draining = true;
  EXPECT_FALSE(ControllerPrefersAnother(preferring, view, Me(true)));
}

TEST(LeaseDecisionTest, RulesTakeTheRenewDeadlineAndTheHealthToleranceFromTheConfig) {
  ElectionConfig config;
  config.renew_deadline = 10s;
  config.health_tolerance = 3s;
  Rules rules = Rules::Of(config);
  EXPECT_EQ(rules.renew_deadline, 10s);
  EXPECT_EQ(rules.health_tolerance, 3s);
}

// A drain at the default timings: lease 15 s, usable 14.75 s after the last renewal was sent,
// renew deadline 10 s.
Rules Draining() {
  Rules rules = Me(true);
  rules.renew_deadline = 10s;
  return rules;
}

TEST(LeaseDecisionTest, ADrainRenewsWhenDueWithinTheEarliestDeadline) {
  ElectorView view = Seeing(Held("me"), 10, kT0);
  view.leading = view.draining = true;
  view.last_renew_sent = kT0;
  const Clock::TimePoint next_renewal = kT0 + 2s;

  // Not due yet: it waits for the renewal, or the record changes first.
  DrainStep waiting = NextDrainStep(view, Draining(), kT0 + 1s, next_renewal, kT0 + 30s);
  EXPECT_EQ(waiting.action, DrainStep::Action::kWait);
  EXPECT_EQ(waiting.wait_until, next_renewal);
  // ... or for the earlier of the two deadlines.
  EXPECT_EQ(NextDrainStep(view, Draining(), kT0 + 1s, next_renewal, kT0 + 1'500ms).wait_until,
            kT0 + 1'500ms);
  EXPECT_EQ(NextDrainStep(view, Draining(), kT0 + 1s, kT0 + 20s, kT0 + 30s).wait_until,
            kT0 + 14'750ms);  // MustStopBy

  // Due: the attempt gets the renew deadline, or what is left before a deadline.
  DrainStep renewing = NextDrainStep(view, Draining(), kT0 + 2s, next_renewal, kT0 + 30s);
  EXPECT_EQ(renewing.action, DrainStep::Action::kRenew);
  EXPECT_EQ(renewing.attempt_budget, 10s);
  EXPECT_EQ(NextDrainStep(view, Draining(), kT0 + 2s, next_renewal, kT0 + 5s).attempt_budget,
            3s);  // until give_up
  EXPECT_EQ(NextDrainStep(view, Draining(), kT0 + 10s, next_renewal, kT0 + 30s).attempt_budget,
            4'750ms);  // until MustStopBy
}

TEST(LeaseDecisionTest, ADrainGivesUpAtEitherDeadlineOrWhenTheLeaseIsNoLongerOurs) {
  ElectorView view = Seeing(Held("me"), 10, kT0);
  view.leading = view.draining = true;
  view.last_renew_sent = kT0;
  const Clock::TimePoint next_renewal = kT0 + 2s;
  EXPECT_EQ(NextDrainStep(view, Draining(), kT0 + 5s, next_renewal, kT0 + 5s).action,
            DrainStep::Action::kGiveUp);  // drain_timeout passed
  EXPECT_EQ(NextDrainStep(view, Draining(), kT0 + 14'750ms, next_renewal, kT0 + 30s).action,
            DrainStep::Action::kGiveUp);  // must stop: the lease could not be kept
  ElectorView given_away = Seeing(Held("other"), 11, kT0);
  given_away.leading = given_away.draining = true;
  given_away.last_renew_sent = kT0;
  EXPECT_EQ(NextDrainStep(given_away, Draining(), kT0 + 1s, next_renewal, kT0 + 30s).action,
            DrainStep::Action::kGiveUp);
  EXPECT_EQ(NextDrainStep(ElectorView{}, Draining(), kT0, next_renewal, kT0 + 30s).action,
            DrainStep::Action::kGiveUp);  // nothing seen
}

TEST(LeaseDecisionTest, ALeaderIsUnhealthyOnceItsRecordStayedUnchangedPastTheLeaseAndTolerance) {
  Rules rules = Me();
  rules.health_tolerance = 5s;
  ElectorView view = Seeing(Held("me"), 10, kT0);
  EXPECT_TRUE(Healthy(view, rules, kT0 + 60s));  // not leading
  view.leading = true;
  EXPECT_TRUE(Healthy(view, rules, kT0 + 20s));  // 15 s lease + 5 s tolerance
  EXPECT_FALSE(Healthy(view, rules, kT0 + 20s + 1ns));
  ElectorView nothing_seen;
  nothing_seen.leading = true;
  EXPECT_TRUE(Healthy(nothing_seen, rules, kT0));
}

}  // namespace
}  // namespace tenure::election
