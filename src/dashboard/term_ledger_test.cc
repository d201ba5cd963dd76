// TermLedger: terms, their ends and handovers, renewal cadence, restore, bounds, JSON.
#include "dashboard/term_ledger.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tenure::dashboard {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

const api::Timestamp kT0 = api::Timestamp{} + std::chrono::hours(24 * 365 * 50);

api::Timestamp At(double s) {
  return kT0 +
         std::chrono::duration_cast<api::Timestamp::duration>(std::chrono::duration<double>(s));
}

api::LeaseSpec Spec(std::string holder, std::optional<double> acquire, std::optional<double> renew,
                    int duration = 15, int transitions = 0) {
  api::LeaseSpec spec;
  spec.holder_identity = std::move(holder);
  if (acquire) spec.acquire_time = At(*acquire);
  if (renew) spec.renew_time = At(*renew);
  spec.lease_duration_seconds = duration;
  spec.lease_transitions = transitions;
  return spec;
}

TEST(TermLedgerTest, ATermStartsAtAcquireTimeAndCountsItsRenewals) {
  TermLedger ledger;
  auto a = Spec("a", 0, 0);
  EXPECT_TRUE(ledger.Observe(At(0.1), &a));
  for (double t : {2.0, 4.0, 7.5}) {
    auto renewed = Spec("a", 0, t);
    EXPECT_FALSE(ledger.Observe(At(t + 0.01), &renewed));
  }
  ASSERT_EQ(ledger.terms().size(), 1u);
  const Term& term = ledger.terms()[0];
  EXPECT_EQ(term.holder, "a");
  EXPECT_EQ(term.start, At(0));
  EXPECT_FALSE(term.start_estimated);
  EXPECT_EQ(term.renewals, 3);
  EXPECT_EQ(term.last_renewal, At(7.5));
  EXPECT_EQ(term.end_kind, TermEnd::kCurrent);
  EXPECT_FALSE(term.handover);
  ASSERT_EQ(ledger.renewals().size(), 3u);
  EXPECT_EQ(ledger.renewals()[0].interval, milliseconds(2000));
  EXPECT_EQ(ledger.renewals()[2].interval, milliseconds(3500));
}

TEST(TermLedgerTest, AReleaseEndsTheTermAndTheNextHandoverCountsFromIt) {
  TermLedger ledger;
  auto a = Spec("a", 0, 0);
  ledger.Observe(At(0), &a);
  auto released = Spec("", 0, 10, 1);
  EXPECT_TRUE(ledger.Observe(At(10.01), &released));
  auto b = Spec("b", 10.4, 10.4, 15, 1);
  EXPECT_TRUE(ledger.Observe(At(10.41), &b));
  ASSERT_EQ(ledger.terms().size(), 2u);
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kReleased);
  EXPECT_EQ(ledger.terms()[0].end, At(10));
  EXPECT_EQ(ledger.terms()[1].holder, "b");
  EXPECT_EQ(ledger.terms()[1].handover, milliseconds(400));
  EXPECT_EQ(ledger.terms()[1].transitions, 1);
}

// A holder that dies stops renewing: its term ends when its lease runs out, and the takeover
// counts from its last renewal, the last sign that it worked.
TEST(TermLedgerTest, AnExpiryThenATakeoverCountsTheHandoverFromTheLastRenewal) {
  TermLedger ledger;
  auto a = Spec("a", 0, 4);
  ledger.Observe(At(4), &a);
  auto b = Spec("b", 19.5, 19.5, 15, 1);
  EXPECT_TRUE(ledger.Observe(At(19.5), &b));
  ASSERT_EQ(ledger.terms().size(), 2u);
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kExpired);
  EXPECT_EQ(ledger.terms()[0].end, At(19));
  EXPECT_EQ(ledger.terms()[1].handover, milliseconds(15500));
}

TEST(TermLedgerTest, TickEndsALapsedTermAndTheSameHolderComingBackStartsANewOne) {
  TermLedger ledger;
  auto a = Spec("a", 0, 2);
  ledger.Observe(At(2), &a);
  EXPECT_FALSE(ledger.Tick(At(16.9)));
  EXPECT_TRUE(ledger.Tick(At(17)));
  EXPECT_FALSE(ledger.Tick(At(18)));
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kExpired);
  // client-go keeps the acquireTime of a holder that takes its own lease again.
  auto back = Spec("a", 0, 30);
  EXPECT_TRUE(ledger.Observe(At(30), &back));
  ASSERT_EQ(ledger.terms().size(), 2u);
  EXPECT_EQ(ledger.terms()[1].start, At(30));
  EXPECT_EQ(ledger.terms()[1].handover, milliseconds(28000));
}

TEST(TermLedgerTest, ARenewalAfterExpiryWithoutATickIsANewTermToo) {
  TermLedger ledger;
  auto a = Spec("a", 0, 2);
  ledger.Observe(At(2), &a);
  auto late = Spec("a", 0, 40);
  EXPECT_TRUE(ledger.Observe(At(40), &late));
  ASSERT_EQ(ledger.terms().size(), 2u);
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kExpired);
  EXPECT_EQ(ledger.terms()[0].end, At(17));
}

TEST(TermLedgerTest, AnotherHolderWhileTheLeaseIsValidReplacesTheTerm) {
  TermLedger ledger;
  auto a = Spec("a", 0, 2);
  ledger.Observe(At(2), &a);
  auto b = Spec("b", 3, 3, 15, 1);
  ledger.Observe(At(3), &b);
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kReplaced);
  EXPECT_EQ(ledger.terms()[0].end, At(3));
  EXPECT_FALSE(ledger.terms()[1].handover);
}

TEST(TermLedgerTest, DeletionEndsTheTermAndAFirstSightWithoutAcquireTimeIsAnEstimate) {
  TermLedger ledger;
  auto a = Spec("a", std::nullopt, std::nullopt);
  ledger.Observe(At(5), &a);
  EXPECT_TRUE(ledger.terms()[0].start_estimated);
  EXPECT_EQ(ledger.terms()[0].start, At(5));
  EXPECT_TRUE(ledger.Observe(At(6), nullptr));
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kDeleted);
  EXPECT_FALSE(ledger.Observe(At(7), nullptr));
}

TEST(TermLedgerTest, ARestoredTermContinuesOnlyWhenTheLeaseStillShowsIt) {
  TermLedger first;
  auto a = Spec("a", 0, 2);
  first.Observe(At(2), &a);
  std::vector<Term> kept(first.terms().begin(), first.terms().end());

  TermLedger same;
  same.Restore(kept);
  EXPECT_FALSE(same.Tick(At(100)));  // not judged before the Lease is seen again
  auto renewed = Spec("a", 0, 4);
  EXPECT_FALSE(same.Observe(At(4), &renewed));
  ASSERT_EQ(same.terms().size(), 1u);
  EXPECT_EQ(same.terms()[0].last_renewal, At(4));

  TermLedger other;
  other.Restore(kept);
  auto b = Spec("b", 50, 50, 15, 3);
  EXPECT_TRUE(other.Observe(At(50), &b));
  ASSERT_EQ(other.terms().size(), 2u);
  EXPECT_EQ(other.terms()[0].end_kind, TermEnd::kUnobserved);
  EXPECT_EQ(other.terms()[0].end, At(17));
  EXPECT_FALSE(other.terms()[1].handover);
}

// The archive keeps the last renewal it was written with, which may be long ago: the term the
// Lease still shows goes on, it did not lapse.
TEST(TermLedgerTest, ARestoredTermIsNotSplitByItsOldLastRenewal) {
  TermLedger first;
  auto a = Spec("a", 0, 0);
  first.Observe(At(0), &a);
  TermLedger later;
  later.Restore(std::vector<Term>(first.terms().begin(), first.terms().end()));
  auto renewed = Spec("a", 0, 1800);
  EXPECT_FALSE(later.Observe(At(1800), &renewed));
  ASSERT_EQ(later.terms().size(), 1u);
  EXPECT_EQ(later.terms()[0].end_kind, TermEnd::kCurrent);
  EXPECT_EQ(later.terms()[0].last_renewal, At(1800));
  EXPECT_TRUE(later.renewals().empty());
}

TEST(TermLedgerTest, ALeaseGoneWhileNobodyWatchedEndsItsRestoredTermUnobserved) {
  TermLedger first;
  auto a = Spec("a", 0, 0);
  first.Observe(At(0), &a);
  TermLedger later;
  later.Restore(std::vector<Term>(first.terms().begin(), first.terms().end()));
  EXPECT_TRUE(later.Observe(At(500), nullptr));
  EXPECT_EQ(later.terms()[0].end_kind, TermEnd::kUnobserved);
  EXPECT_EQ(later.terms()[0].end, At(15));
}

// Tick judged by this clock; a renewal written before the expiry and seen late takes it back.
TEST(TermLedgerTest, AnExpiryTheHoldersRenewalProvesWrongIsTakenBack) {
  TermLedger ledger;
  auto a = Spec("a", 0, 0);
  ledger.Observe(At(0), &a);
  EXPECT_TRUE(ledger.Tick(At(15.2)));
  // The same Lease again (a relist) proves nothing: still expired.
  EXPECT_FALSE(ledger.Observe(At(15.25), &a));
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kExpired);
  auto renewed = Spec("a", 0, 14.9);
  EXPECT_TRUE(ledger.Observe(At(15.3), &renewed));
  ASSERT_EQ(ledger.terms().size(), 1u);
  EXPECT_EQ(ledger.terms()[0].end_kind, TermEnd::kCurrent);
  EXPECT_FALSE(ledger.terms()[0].end);
}

// The holder's clock is ahead (its acquireTime in the future); a replacement with an acquireTime
// before that: the first term does not end before it started.
TEST(TermLedgerTest, AReplacementUnderSkewedClocksNeverEndsATermBeforeItStarted) {
  TermLedger ledger;
  auto a = Spec("a", 10, 10);
  ledger.Observe(At(5), &a);
  auto b = Spec("b", 6, 6, 15, 1);
  ledger.Observe(At(7), &b);
  ASSERT_EQ(ledger.terms().size(), 2u);
  EXPECT_GE(*ledger.terms()[0].end, ledger.terms()[0].start);
  EXPECT_GE(ledger.terms()[1].start, *ledger.terms()[0].end);
}

TEST(TermLedgerTest, TheCadenceIsTheCurrentTermsAndAStartIsNeverBeforeThePreviousEnd) {
  TermLedger ledger;
  auto a = Spec("a", 0, 0);
  ledger.Observe(At(0), &a);
  a.renew_time = At(2);
  ledger.Observe(At(2), &a);
  EXPECT_EQ(ledger.renewals().size(), 1u);
  // b's acquireTime is before a's release (b's clock is behind): its start is its renewTime.
  auto released = Spec("", 0, 3, 1);
  ledger.Observe(At(3), &released);
  auto b = Spec("b", 2.5, 4);
  ledger.Observe(At(4), &b);
  EXPECT_TRUE(ledger.renewals().empty());
  EXPECT_EQ(ledger.terms().back().start, At(4));
  EXPECT_EQ(ledger.terms().back().handover, milliseconds(1000));
  // Neither time usable: when it was seen, marked as an estimate.
  auto c = Spec("c", 1, std::nullopt);
  ledger.Observe(At(5), &c);
  EXPECT_EQ(ledger.terms().back().start, At(5));
  EXPECT_TRUE(ledger.terms().back().start_estimated);
}

TEST(TermLedgerTest, KeepsTheNewestTermsAndRenewalsOnly) {
  TermLedger ledger;
  for (int i = 0; i < 60; ++i) {
    auto spec = Spec("h" + std::to_string(i), i * 100.0, i * 100.0);
    ledger.Observe(At(i * 100.0), &spec);
  }
  EXPECT_EQ(ledger.terms().size(), TermLedger::kMaxTerms);
  EXPECT_EQ(ledger.terms().back().holder, "h59");
  auto spec = Spec("h59", 5900, 5900);
  for (int i = 1; i <= 200; ++i) {
    spec.renew_time = At(5900 + i);
    ledger.Observe(At(5900 + i), &spec);
  }
  EXPECT_EQ(ledger.renewals().size(), TermLedger::kMaxRenewals);
}

TEST(TermLedgerTest, TheCadenceCountsItsTimesBackFromTheNewestAndCapsLongIntervals) {
  TermLedger ledger;
  auto a = Spec("a", 0, 0, /*duration=*/300);
  ledger.Observe(At(0), &a);
  for (double t : {2.0, 100.0, 101.5}) {
    a.renew_time = At(t);
    ledger.Observe(At(t), &a);
  }
  std::vector<Renewal> renewals = ledger.renewals();
  ASSERT_EQ(renewals.size(), 3u);
  EXPECT_EQ(renewals[2], (Renewal{At(101.5), milliseconds(1500)}));
  EXPECT_EQ(renewals[1], (Renewal{At(100), TermLedger::kLongestInterval}));
  EXPECT_EQ(renewals[0].interval, milliseconds(2000));
}

TEST(TermLedgerTest, TermsRoundTripThroughJsonAndBadOnesAreRefused) {
  TermLedger ledger;
  auto a = Spec("a", 0, 2);
  ledger.Observe(At(2), &a);
  auto b = Spec("b", 20, 20, 15, 1);
  ledger.Observe(At(20), &b);
  for (const Term& term : ledger.terms()) {
    auto back = TermFromJson(TermToJson(term));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, term);
  }
  json bad = TermToJson(ledger.terms()[0]);
  bad["end"] = "vanished";
  EXPECT_FALSE(TermFromJson(bad).ok());
  EXPECT_FALSE(TermFromJson(nlohmann::json::array()).ok());
  bad = TermToJson(ledger.terms()[0]);
  bad["start"] = "yesterday";
  EXPECT_FALSE(TermFromJson(bad).ok());
  // A member of another type is refused, not thrown.
  for (const char* key : {"renewals", "leaseDurationSeconds", "transitions", "handoverMs",
                          "startEstimated", "end", "holder", "endTime"}) {
    bad = TermToJson(ledger.terms()[0]);
    bad[key] = json::array({1});
    EXPECT_FALSE(TermFromJson(bad).ok()) << key;
  }
}

}  // namespace
}  // namespace tenure::dashboard
