// Every rule of Decide with hand-made objects and times: no I/O, no clock.
#include "coordination/decision.h"

#include <gtest/gtest.h>

namespace tenure::coordination {
namespace {

using namespace std::chrono_literals;
using Kind = Decision::Kind;

const api::Timestamp kNow = *api::ParseTime("2026-01-01T12:00:00Z");

api::LeaseCandidate Candidate(std::string name, std::string binary, std::string emulation,
                              std::optional<std::chrono::nanoseconds> renewed_ago = 1s,
                              std::string strategy = "OldestEmulationVersion") {
  api::LeaseCandidate c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = "default";
  c.metadata.creation_timestamp = kNow - 1h;
  c.spec.lease_name = "lease";
  c.spec.binary_version = std::move(binary);
  c.spec.emulation_version = std::move(emulation);
  c.spec.strategy = std::move(strategy);
  if (renewed_ago) {
    c.spec.renew_time = kNow - std::chrono::duration_cast<std::chrono::microseconds>(*renewed_ago);
  }
  return c;
}

api::Lease Lease(std::string holder, std::chrono::nanoseconds renewed_ago = 1s,
                 std::string preferred = "") {
  api::Lease l;
  l.metadata.name = "lease";
  l.metadata.namespace_ = "default";
  l.spec.holder_identity = std::move(holder);
  l.spec.renew_time = kNow - std::chrono::duration_cast<std::chrono::microseconds>(renewed_ago);
  l.spec.acquire_time = kNow - 1h;
  l.spec.lease_duration_seconds = 5;
  l.spec.lease_transitions = 3;
  l.spec.strategy = "OldestEmulationVersion";
  if (!preferred.empty()) l.spec.preferred_holder = std::move(preferred);
  return l;
}

// Seen by the controller when it was renewed, unless `seen_ago` says otherwise.
Decision DecideNow(const std::optional<api::Lease>& lease,
                   const std::vector<api::LeaseCandidate>& c,
                   std::optional<std::chrono::nanoseconds> seen_ago = std::nullopt) {
  std::optional<SeenLease> seen;
  if (lease) {
    api::Timestamp at = lease->spec.renew_time.value_or(kNow);
    if (seen_ago) at = kNow - std::chrono::duration_cast<std::chrono::microseconds>(*seen_ago);
    seen = SeenLease{*lease, at};
  }
  return Decide(seen, c, kNow, ElectionTimings{});
}

// The three candidates of the rolling-upgrade story, all answered recently.
std::vector<api::LeaseCandidate> Upgrade() {
  return {Candidate("old", "1.33.0", "1.33.0"), Candidate("mixed", "1.34.0", "1.33.0"),
          Candidate("new", "1.34.0", "1.34.0")};
}

TEST(DecideTest, NothingWithoutLiveCandidates) {
  EXPECT_EQ(DecideNow(std::nullopt, {}).kind, Kind::kNoCandidates);
  auto expired = Candidate("a", "1.33.0", "1.33.0", 31min);
  auto never_renewed = Candidate("b", "1.33.0", "1.33.0", std::nullopt);
  Decision d = DecideNow(Lease("a", 1h), {expired, never_renewed});
  EXPECT_EQ(d.kind, Kind::kNoCandidates);
  EXPECT_FALSE(d.write);
  EXPECT_TRUE(d.pings.empty());
}

TEST(DecideTest, CreatesTheLeaseForTheBestAnsweredCandidate) {
  Decision d = DecideNow(std::nullopt, Upgrade());
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_TRUE(d.pings.empty());  // all renewed within the election duration
  ASSERT_TRUE(d.write && d.write->create);
  const api::LeaseSpec& s = d.write->spec;
  EXPECT_EQ(s.holder_identity, "old");
  EXPECT_EQ(s.strategy, "OldestEmulationVersion");
  EXPECT_EQ(s.lease_duration_seconds, 5);
  EXPECT_EQ(s.renew_time, kNow);
  EXPECT_EQ(s.lease_transitions, 0);
  EXPECT_FALSE(s.preferred_holder);
  EXPECT_TRUE(d.elected);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0], (DecisionEvent{"Normal", "LeaderElected",
                                        "old elected: OldestEmulationVersion, emulation 1.33.0, "
                                        "binary 1.33.0"}));
}

TEST(DecideTest, PingsCandidatesThatHaveNotRenewedRecentlyAndWaits) {
  auto c = Upgrade();
  c[0].spec.renew_time = kNow - 1min;
  c[2].spec.renew_time = kNow - 10s;
  Decision d = DecideNow(std::nullopt, c);
  EXPECT_EQ(d.kind, Kind::kPinging);
  EXPECT_EQ(d.pings, (std::vector<std::string>{"old", "new"}));
  EXPECT_FALSE(d.write);
  ASSERT_TRUE(d.requeue_after);
  EXPECT_LE(*d.requeue_after, 5s + 1ms);
}

TEST(DecideTest, WaitsForPendingPingsOnlyWhenTheyCouldChangeTheOutcome) {
  auto c = Upgrade();
  // "old" (the best) was pinged 2 s ago and has not answered: it could still win.
  c[0].spec.renew_time = kNow - 1min;
  c[0].spec.ping_time = kNow - 2s;
  Decision d = DecideNow(std::nullopt, c);
  EXPECT_EQ(d.kind, Kind::kWaitingForAcks);
  ASSERT_TRUE(d.requeue_after);
  EXPECT_LE(*d.requeue_after, 3s + 1ms);  // until the ping times out
  EXPECT_GT(*d.requeue_after, 2s);
  // "new" (the worst) pending instead: it cannot win, no need to wait.
  c = Upgrade();
  c[2].spec.renew_time = kNow - 1min;
  c[2].spec.ping_time = kNow - 2s;
  d = DecideNow(std::nullopt, c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "old");
}

TEST(DecideTest, AHolderThatLetItsLeaseExpireIsNotWaitedFor) {
  auto c = Upgrade();
  // "old" (the best) held the lease, stopped renewing 10 s ago (duration 5 s) and has not
  // answered the ping sent 2 s ago: presumed dead, the next best gets the lease now.
  c[0].spec.renew_time = kNow - 1min;
  c[0].spec.ping_time = kNow - 2s;
  Decision d = DecideNow(Lease("old", 10s), c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "mixed");
  // Its ping is sent, but the others, who renewed recently, need none: no waiting either.
  c = Upgrade();
  c[0].spec.renew_time = kNow - 1min;
  d = DecideNow(Lease("old", 10s), c);
  EXPECT_EQ(d.pings, (std::vector<std::string>{"old"}));
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "mixed");
  c[0].spec.ping_time = kNow - 2s;
  // The same pending ping from a candidate that is not the lapsed holder is still waited for.
  d = DecideNow(Lease("new", 10s), c);
  EXPECT_EQ(d.kind, Kind::kWaitingForAcks);
  // A lapsed holder that answered in time keeps winning.
  c[0].spec.renew_time = kNow - 1s;
  d = DecideNow(Lease("old", 10s), c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "old");
}

TEST(DecideTest, ACandidateThatIgnoredItsPingIsLeftOutAndNotPingedAgain) {
  auto c = Upgrade();
  c[0].spec.renew_time = kNow - 1min;
  c[0].spec.ping_time = kNow - 6s;  // unanswered for longer than the election duration
  Decision d = DecideNow(std::nullopt, c);
  EXPECT_TRUE(d.pings.empty());
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "mixed");
}

TEST(DecideTest, AnAnsweredOldPingIsRepeated) {
  auto c = Upgrade();
  c[0].spec.ping_time = kNow - 1min;
  c[0].spec.renew_time = kNow - 59s;  // answered, but long ago
  Decision d = DecideNow(std::nullopt, c);
  EXPECT_EQ(d.pings, (std::vector<std::string>{"old"}));
}

TEST(DecideTest, NoAnswerMeansNoAvailableCandidates) {
  auto a = Candidate("a", "1.33.0", "1.33.0", 10min);
  a.spec.ping_time = kNow - 6s;
  Decision d = DecideNow(std::nullopt, {a});
  EXPECT_EQ(d.kind, Kind::kNoAvailable);
  EXPECT_FALSE(d.write);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].type, "Warning");
  EXPECT_EQ(d.events[0].reason, "NoCandidates");
  EXPECT_EQ(d.requeue_after, ElectionTimings{}.requeue_interval);
}

TEST(DecideTest, TheRightHolderOfAValidLeaseNeedsNothingUntilItExpires) {
  Decision d = DecideNow(Lease("old", 1s), Upgrade());
  EXPECT_EQ(d.kind, Kind::kNotNeeded);
  EXPECT_FALSE(d.write);
  EXPECT_TRUE(d.events.empty());
  ASSERT_TRUE(d.requeue_after);
  EXPECT_EQ(*d.requeue_after, 4s + 1ms);  // at the lease's expiry
}

TEST(DecideTest, ABetterCandidatePreemptsThroughPreferredHolder) {
  auto c = Upgrade();
  c.push_back(Candidate("older", "1.33.0", "1.32.0"));
  Decision d = DecideNow(Lease("old", 1s), c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  ASSERT_FALSE(d.write->create);
  EXPECT_EQ(d.write->spec.holder_identity, "old");  // the holder keeps it until it hands over
  EXPECT_EQ(d.write->spec.preferred_holder, "older");
  EXPECT_EQ(d.write->spec.renew_time, Lease("old", 1s).spec.renew_time);
  EXPECT_TRUE(d.preempting);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_EQ(d.events[0].reason, "Preempting");
  EXPECT_EQ(d.events[0].message, "preferredHolder older replaces old: emulation 1.32.0 < 1.33.0");
  ASSERT_TRUE(d.requeue_after);
  EXPECT_EQ(*d.requeue_after, 4s + 1ms);  // look again when the lease expires
  // Already asked: nothing to write while waiting.
  Decision again = DecideNow(Lease("old", 1s, "older"), c);
  EXPECT_EQ(again.kind, Kind::kUnchanged);
  EXPECT_FALSE(again.write);
  EXPECT_TRUE(again.events.empty());
}

TEST(DecideTest, AReleasedLeaseGoesToTheWinnerAtOnce) {
  auto c = Upgrade();
  c.push_back(Candidate("older", "1.33.0", "1.32.0"));
  api::Lease released = Lease("", 0s, "older");  // what a preempted tenure leader writes
  released.spec.lease_duration_seconds = 1;
  Decision d = DecideNow(released, c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  const api::LeaseSpec& s = d.write->spec;
  EXPECT_EQ(s.holder_identity, "older");
  EXPECT_FALSE(s.preferred_holder);
  EXPECT_EQ(s.lease_duration_seconds, 5);
  EXPECT_EQ(s.renew_time, kNow);
  EXPECT_EQ(s.acquire_time, kNow);
  EXPECT_EQ(s.lease_transitions, 4);
  EXPECT_TRUE(d.elected);
  EXPECT_EQ(d.events.at(0).reason, "LeaderElected");
}

TEST(DecideTest, AnExpiredLeaseOfAnotherHolderGoesToTheWinner) {
  auto c = Upgrade();
  c.erase(c.begin());  // "old" died: its candidate is gone
  Decision d = DecideNow(Lease("old", 6s), c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "mixed");
  EXPECT_EQ(d.summary,
            "mixed elected: OldestEmulationVersion, emulation 1.33.0, binary 1.34.0 (lease of old "
            "expired)");
}

// The holder's clock runs a minute behind: its fresh renewal carries a renewTime a minute old.
// Judged from renewTime the lease would look expired and be given to another candidate while its
// holder still leads; judged from when the controller saw it, it is valid.
TEST(DecideTest, ExpiryCountsFromWhenTheControllerSawTheLeaseNotFromRenewTime) {
  auto c = Upgrade();
  c.erase(c.begin());  // "old" has no candidate any more, so only expiry could end its term
  Decision d = DecideNow(Lease("old", 1min), c, /*seen_ago=*/1s);
  EXPECT_FALSE(d.elected);  // at most preempted (preferredHolder), never replaced
  ASSERT_TRUE(d.write.has_value());
  EXPECT_EQ(d.write->spec.holder_identity, "old");
  EXPECT_EQ(d.write->spec.preferred_holder, "mixed");
  ASSERT_TRUE(d.requeue_after.has_value());
  EXPECT_LE(*d.requeue_after, 4100ms);  // looks again when it expires as seen: 5 s after 1 s ago

  // And a holder whose clock runs ahead does not keep a lease it stopped renewing.
  api::Lease ahead = Lease("old", -1min);
  d = DecideNow(ahead, c, /*seen_ago=*/6s);
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "mixed");
}

TEST(DecideTest, AStalePreferredHolderIsClearedWhenItsCandidateIsGone) {
  Decision d = DecideNow(Lease("old", 1s, "ghost"), Upgrade());
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "old");
  EXPECT_FALSE(d.write->spec.preferred_holder);
  EXPECT_TRUE(d.preferred_cleared);
  EXPECT_EQ(d.events.at(0),
            (DecisionEvent{"Normal", "PreferredHolderCleared",
                           "preferredHolder ghost cleared: its candidate is gone, expired or not "
                           "answering pings; old keeps the lease"}));
}

TEST(DecideTest, AStalePreferredHolderNeverStallsAnExpiredLease) {
  // The holder stopped renewing because of preferredHolder, then "ghost" went away: the
  // reference leaves this lease expired for good; here the winner gets it again.
  Decision d = DecideNow(Lease("old", 10s, "ghost"), Upgrade());
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.holder_identity, "old");
  EXPECT_FALSE(d.write->spec.preferred_holder);
  EXPECT_EQ(d.write->spec.renew_time, kNow);
  EXPECT_EQ(d.write->spec.lease_transitions, 3);  // same holder: no transition
}

TEST(DecideTest, APreferredHolderThatIsNoLongerTheBestIsReplaced) {
  auto c = Upgrade();
  c.push_back(Candidate("older", "1.33.0", "1.32.0"));
  c.push_back(Candidate("oldest", "1.33.0", "1.31.0"));
  Decision d = DecideNow(Lease("old", 1s, "older"), c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.preferred_holder, "oldest");
  EXPECT_EQ(d.events.at(0).message,
            "preferredHolder oldest replaces old: emulation 1.31.0 < 1.33.0 (instead of older)");
}

TEST(DecideTest, AStrategyConflictLeavesTheLeaseAlone) {
  auto c = Upgrade();
  c.push_back(Candidate("rebel", "1.34.0", "1.34.0", 1s, "example.com/mine"));
  for (const auto& lease : {std::optional<api::Lease>(), std::optional(Lease("new", 10s))}) {
    Decision d = DecideNow(lease, c);
    EXPECT_EQ(d.kind, Kind::kStrategyConflict);
    EXPECT_FALSE(d.write);
    EXPECT_TRUE(d.pings.empty());
    ASSERT_EQ(d.events.size(), 1u);
    EXPECT_EQ(d.events[0],
              (DecisionEvent{"Warning", "StrategyConflict",
                             "candidates of binary version 1.34.0 disagree: mixed "
                             "(OldestEmulationVersion) vs rebel (example.com/mine); lease left "
                             "alone"}));
  }
}

TEST(DecideTest, AThirdPartyStrategyOnlySetsTheStrategy) {
  std::vector<api::LeaseCandidate> c = {
      Candidate("a", "1.34.0", "1.34.0", 20min, "example.com/mine"),
      Candidate("b", "1.33.0", "1.33.0", 20min)};
  Decision created = DecideNow(std::nullopt, c);
  EXPECT_EQ(created.kind, Kind::kThirdParty);
  EXPECT_TRUE(created.pings.empty());
  ASSERT_TRUE(created.write && created.write->create);
  EXPECT_EQ(created.write->spec, (api::LeaseSpec{.strategy = "example.com/mine"}));

  api::Lease held = Lease("b", 1h);  // expired, held by someone the other controller picked
  Decision updated = DecideNow(held, c);
  ASSERT_TRUE(updated.write && !updated.write->create);
  api::LeaseSpec expected = held.spec;
  expected.strategy = "example.com/mine";
  EXPECT_EQ(updated.write->spec, expected);

  held.spec.strategy = "example.com/mine";
  Decision unchanged = DecideNow(held, c);
  EXPECT_EQ(unchanged.kind, Kind::kThirdParty);
  EXPECT_FALSE(unchanged.write);
}

TEST(DecideTest, ABetterCandidateThatIgnoredItsPingDoesNotKeepTheElectionGoing) {
  auto c = Upgrade();
  c.push_back(Candidate("dead", "1.33.0", "1.32.0", 2min));  // killed without cleaning up
  c.back().spec.ping_time = kNow - 1min;
  Decision d = DecideNow(Lease("old", 1s), c);
  EXPECT_EQ(d.kind, Kind::kNotNeeded);
  EXPECT_TRUE(d.pings.empty());
  // Once it renews again it counts: preemption.
  c.back().spec.renew_time = kNow - 1s;
  d = DecideNow(Lease("old", 1s), c);
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.write->spec.preferred_holder, "dead");
}

TEST(DecideTest, APreemptionExplainsItselfWithoutWaitingForTheHolderToAnswer) {
  auto c = Upgrade();
  for (auto& candidate : c) {  // renewed long ago: all get pinged
    candidate.spec.renew_time = kNow - 1min;
    candidate.spec.ping_time = kNow - 1s;
  }
  c.push_back(Candidate("older", "1.33.0", "1.32.0"));
  Decision d = DecideNow(Lease("old", 1s), c);
  // The pings of the others are outstanding, but none could beat "older".
  ASSERT_EQ(d.kind, Kind::kWrite);
  EXPECT_EQ(d.events.at(0).message,
            "preferredHolder older replaces old: emulation 1.32.0 < 1.33.0");
}

TEST(DecideTest, CandidatesDueForARefreshArePinged) {
  auto c = Upgrade();
  c[1].spec.renew_time = kNow - 16min;
  Decision d = DecideNow(Lease("old", 1s), c);
  EXPECT_EQ(d.kind, Kind::kPinging);
  EXPECT_EQ(d.pings, (std::vector<std::string>{"mixed"}));
  // Once it answered, nothing to do until the lease expires.
  c[1].spec.ping_time = kNow - 2s;
  c[1].spec.renew_time = kNow - 1s;
  EXPECT_EQ(DecideNow(Lease("old", 1s), c).kind, Kind::kNotNeeded);
}

TEST(DecideTest, CandidatesWithUnparsableVersionsCannotWin) {
  std::vector<api::LeaseCandidate> c = {Candidate("bad", "1.30.0", "1.30"),
                                        Candidate("good", "1.34.0", "1.34.0")};
  EXPECT_EQ(DecideNow(std::nullopt, c).write->spec.holder_identity, "good");
  c.pop_back();
  EXPECT_EQ(DecideNow(std::nullopt, c).kind, Kind::kNoAvailable);
}

TEST(DecideTest, ALeaseWithoutStrategyIsTakenOver) {
  api::Lease plain = Lease("old", 1s);
  plain.spec.strategy.reset();
  Decision d = DecideNow(plain, Upgrade());
  ASSERT_EQ(d.kind, Kind::kWrite);
  api::LeaseSpec expected = plain.spec;
  expected.strategy = "OldestEmulationVersion";
  EXPECT_EQ(d.write->spec, expected);
  EXPECT_TRUE(d.events.empty());
}

}  // namespace
}  // namespace tenure::coordination
