// Elector rules with a FakeClock and MemoryLocks: every wait is on the fake clock, and tests
// move time only once the electors are asleep, so no test depends on real timing.
#include "tenure/elector.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "election/jitter.h"
#include "tenure/fake_clock.h"
#include "tenure/health.h"
#include "tenure/memory_lock.h"
#include "tenure/metrics.h"
#include "tenure/testing/election_recorder.h"
#include "tenure/testing/waits.h"
#include "tenure/version.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;

using Recorder = testing::ElectionRecorder;

class ElectorTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::shared_ptr<MemoryLockStore> store_ = std::make_shared<MemoryLockStore>();

  ElectionConfig Config(const std::string& identity, Recorder& rec, bool watch = true) {
    ElectionConfig c;
    c.lock = std::make_shared<MemoryLock>(store_, identity, watch);
    c.clock = clock_;
    rec.Attach(c.callbacks);
    return c;
  }

  std::unique_ptr<ElectionHandle> Start(ElectionConfig config) {
    auto elector = Elector::Create(std::move(config));
    EXPECT_TRUE(elector.ok()) << elector.status().ToString();
    return std::make_unique<ElectionHandle>(std::shared_ptr<Elector>(std::move(*elector)));
  }

  // Advances the fake clock in steps once `sleepers` threads wait on it.
  void Advance(std::chrono::nanoseconds total, int sleepers,
               std::chrono::nanoseconds step = 500ms) {
    ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock_, total, sleepers, step))
        << "sleepers: " << clock_->sleepers();
  }
};

TEST(ElectionConfigTest, ValidationFollowsClientGoOrderAndMessages) {
  auto lock = std::make_shared<MemoryLock>(std::make_shared<MemoryLockStore>(), "me");
  ElectionConfig c;
  c.lock = lock;
  c.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
  c.callbacks.on_stopped_leading = [] {};
  EXPECT_TRUE(ValidateElectionConfig(c).ok());

  auto message = [](ElectionConfig config) { return ValidateElectionConfig(config).message(); };
  ElectionConfig bad = c;
  bad.lease_duration = 10s;
  EXPECT_EQ(message(bad), "leaseDuration must be greater than renewDeadline");
  bad = c;
  bad.retry_period = 9s;
  EXPECT_EQ(message(bad), "renewDeadline must be greater than retryPeriod*JitterFactor");
  bad = c;
  bad.retry_period = 0s;
  EXPECT_EQ(message(bad), "retryPeriod must be greater than zero");
  bad = c;
  bad.callbacks.on_started_leading = nullptr;
  EXPECT_EQ(message(bad), "OnStartedLeading callback must not be nil");
  bad = c;
  bad.callbacks.on_stopped_leading = nullptr;
  EXPECT_EQ(message(bad), "OnStoppedLeading callback must not be nil");
  bad = c;
  bad.lock = nullptr;
  EXPECT_EQ(message(bad), "Lock must not be nil.");
  bad = c;
  bad.lock = std::make_shared<MemoryLock>(std::make_shared<MemoryLockStore>(), "");
  EXPECT_EQ(message(bad), "Lock identity is empty");
  EXPECT_EQ(ValidateElectionConfig(bad).reason(), Reason::kInvalid);
  EXPECT_FALSE(Elector::Create(bad).ok());
}

TEST(JitterTest, StaysWithinRetryPeriodAndTwoPointTwoTimesIt) {
  for (int i = 0; i < 10000; ++i) {
    auto d = Jittered(2s);
    EXPECT_GE(d, 2s);
    EXPECT_LT(d, 4400ms);
  }
}

TEST_F(ElectorTest, AcquiresAnEmptyLockAtOnceAndRenewsOnTheFastPath) {
  Recorder rec;
  auto handle = Start(Config("a", rec));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  auto record = store_->current();
  ASSERT_TRUE(record);
  EXPECT_EQ(record->record.holder_identity, "a");
  EXPECT_EQ(record->record.lease_duration_seconds, 15);
  EXPECT_EQ(record->record.leader_transitions, 0);
  EXPECT_EQ(rec.Term(0).fencing_token, static_cast<uint64_t>(record->version));
  int reads = store_->reads();
  // Elector thread and term guard sleep; five renewals follow, none with a GET.
  Advance(10s, 2);
  ASSERT_TRUE(Eventually([&] { return store_->writes() >= 5; }));
  EXPECT_EQ(store_->reads(), reads);
  EXPECT_EQ(handle->elector().metrics().slow_path_total, 0u);
  EXPECT_TRUE(handle->elector().IsLeader());
  EXPECT_TRUE(handle->elector().Healthy());
}

TEST_F(ElectorTest, ConflictOnTheFastPathFallsBackToGetAndKeepsLeading) {
  Recorder rec;
  auto handle = Start(Config("a", rec));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  // Someone else rewrites the record (same holder): our cached version is stale.
  LeaderElectionRecord r = store_->current()->record;
  store_->Put(r);
  Advance(2s, 2);
  ASSERT_TRUE(Eventually([&] { return handle->elector().metrics().slow_path_total == 1; }));
  ASSERT_TRUE(Eventually([&] { return handle->elector().metrics().renew_total >= 2; }));
  EXPECT_TRUE(handle->elector().IsLeader());
  EXPECT_EQ(store_->current()->record.holder_identity, "a");
}

TEST_F(ElectorTest, ExpiryIsJudgedOnTheRecordsOwnDurationFromLocalObservation) {
  LeaderElectionRecord other;
  other.holder_identity = "other";
  other.lease_duration_seconds = 30;  // longer than our 15 s
  store_->Put(other);
  Recorder rec;
  auto handle = Start(Config("b", rec, /*watch=*/false));
  Advance(29s, 1);
  EXPECT_EQ(rec.started.load(), 0);
  EXPECT_EQ(store_->current()->record.holder_identity, "other");
  Advance(6s, 1);  // past 30 s plus the longest jittered retry
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  EXPECT_EQ(store_->current()->record.holder_identity, "b");
  EXPECT_EQ(store_->current()->record.leader_transitions, 1);
}

TEST_F(ElectorTest, TakeoverCountsTransitionsAndSetsAcquireTime) {
  Recorder ra, rb;
  auto a = Start(Config("a", ra));
  ASSERT_TRUE(Eventually([&] { return ra.started.load() == 1; }));
  auto first = store_->current()->record;
  auto b = Start(Config("b", rb));
  ASSERT_TRUE(Eventually([&] { return store_->reads() >= 1; }));
  ASSERT_TRUE(clock_->WaitForSleepers(3, 10s));                 // a, a's guard, b watching
  store_->SetFailure(Status::Unavailable("a is partitioned"));  // a can no longer renew...
  // ...and gives up 2 s + renew deadline (10 s) after its last renewal.
  Advance(12s, 3);
  ASSERT_TRUE(Eventually([&] { return ra.stopped.load() == 1; }));
  store_->SetFailure(Status::Ok());
  Advance(4s, 1);  // b tries when the lease it observed at 0 s expires (15 s)
  ASSERT_TRUE(Eventually([&] { return rb.started.load() == 1; }));
  auto second = store_->current()->record;
  EXPECT_EQ(second.holder_identity, "b");
  EXPECT_EQ(second.leader_transitions, first.leader_transitions + 1);
  EXPECT_GT(second.acquire_time, first.acquire_time);
  EXPECT_GT(rb.Term(0).fencing_token, ra.Term(0).fencing_token);
}

TEST_F(ElectorTest, ReleaseOnCancelHandsOverThroughTheWatchWithoutWaiting) {
  Recorder ra, rb;
  ElectionConfig ca = Config("a", ra);
  ca.release_on_cancel = true;
  auto a = Start(std::move(ca));
  ASSERT_TRUE(Eventually([&] { return ra.started.load() == 1; }));
  auto b = Start(Config("b", rb));
  ASSERT_TRUE(clock_->WaitForSleepers(3, 10s));  // a, a's guard, b waiting on the watch
  int transitions = store_->current()->record.leader_transitions;
  a->Stop();
  EXPECT_TRUE(ra.Token(0).stop_requested());
  EXPECT_EQ(ra.stopped.load(), 1);
  // b takes over without the fake clock moving at all.
  ASSERT_TRUE(Eventually([&] { return rb.started.load() == 1; }));
  auto record = store_->current()->record;
  EXPECT_EQ(record.holder_identity, "b");
  EXPECT_EQ(record.leader_transitions, transitions + 1);
  EXPECT_GT(rb.Term(0).fencing_token, ra.Term(0).fencing_token);
}

TEST_F(ElectorTest, ReleaseWritesAnEmptyHolderWithOneSecondAndKeepsTransitions) {
  Recorder ra;
  ElectionConfig ca = Config("a", ra, /*watch=*/false);
  ca.release_on_cancel = true;
  auto a = Start(std::move(ca));
  ASSERT_TRUE(Eventually([&] { return ra.started.load() == 1; }));
  LeaderElectionRecord held = store_->current()->record;
  held.leader_transitions = 7;
  // Unseen by the leader: its write over its last renewal conflicts, and it reads and keeps
  // what it finds.
  store_->Put(held);
  a->Stop();
  auto released = store_->current()->record;
  EXPECT_EQ(released.holder_identity, "");
  EXPECT_EQ(released.lease_duration_seconds, 1);
  EXPECT_EQ(released.leader_transitions, 7);
  EXPECT_EQ(released.acquire_time, released.renew_time);
}

// A release writes over the record last seen (its own last renewal) at that version: no read.
TEST_F(ElectorTest, ReleaseWritesOverItsLastRenewalWithoutARead) {
  Recorder ra;
  ElectionConfig ca = Config("a", ra);
  ca.release_on_cancel = true;
  auto a = Start(std::move(ca));
  ASSERT_TRUE(Eventually([&] { return ra.started.load() == 1; }));
  const int64_t renewed = store_->current()->version;
  int reads = store_->reads();
  int writes = store_->writes();
  a->Stop();
  EXPECT_EQ(store_->reads(), reads);
  EXPECT_EQ(store_->writes(), writes + 1);
  EXPECT_EQ(store_->current()->record.holder_identity, "");
  EXPECT_GT(store_->current()->version, renewed);
}

TEST_F(ElectorTest, CallbacksRunInOrderAndStoppedLeadingOnlyAfterATerm) {
  Recorder rec;
  auto a = Start(Config("a", rec));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  a->Stop();
  // on_new_leader runs on its own notifier thread: only started/stopped are ordered.
  auto calls = rec.Calls();
  std::erase_if(calls, [](const std::string& c) { return c.rfind("new ", 0) == 0; });
  EXPECT_EQ(calls, (std::vector<std::string>{"started a", "stopped"}));

  // A candidate that never leads never hears on_stopped_leading.
  Recorder rx, ry;
  auto store2 = std::make_shared<MemoryLockStore>();
  LeaderElectionRecord held;
  held.holder_identity = "x";
  held.lease_duration_seconds = 15;
  store_ = store2;
  store_->Put(held);
  auto y = Start(Config("y", ry));
  ASSERT_TRUE(Eventually([&] { return store_->reads() >= 1; }));
  y->Stop();
  EXPECT_EQ(ry.stopped.load(), 0);
  EXPECT_EQ(ry.started.load(), 0);
}

TEST_F(ElectorTest, NewLeaderIsReportedOncePerChangeOfHolder) {
  Recorder ra, rb;
  auto a = Start(Config("a", ra));
  ASSERT_TRUE(Eventually([&] { return ra.started.load() == 1; }));
  auto b = Start(Config("b", rb));
  Advance(10s, 3);  // five renewals by a, all seen by b's watch
  ASSERT_TRUE(Eventually([&] {
    auto calls = rb.Calls();
    return std::count(calls.begin(), calls.end(), "new a") == 1;
  }));
  auto calls = rb.Calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "new a"), 1);
  EXPECT_EQ(calls.size(), 1u);
}

TEST_F(ElectorTest, AWatchingFollowerMakesNoRequestsWhileTheLeaderRenews) {
  Recorder ra, rb;
  auto a = Start(Config("a", ra));
  ASSERT_TRUE(Eventually([&] { return ra.started.load() == 1; }));
  auto b = Start(Config("b", rb));
  ASSERT_TRUE(clock_->WaitForSleepers(3, 10s));
  int reads = store_->reads();
  int writes = store_->writes();
  Advance(60s, 3);
  ASSERT_TRUE(clock_->WaitForSleepers(3, 10s));
  EXPECT_EQ(store_->reads(), reads);         // neither polls
  EXPECT_GE(store_->writes() - writes, 25);  // a renewed every 2 s
  EXPECT_EQ(rb.started.load(), 0);
}

// A watching follower takes over a lease whose holder stopped renewing with one write at the
// version its watch delivered: no read first (with thousands of leases changing hands at once,
// a read per takeover doubles the requests).
TEST_F(ElectorTest, AWatchingFollowerTakesOverAnExpiredLeaseWithOneWriteAndNoRead) {
  Recorder ra, rb;
  auto a = Start(Config("a", ra));
  ASSERT_TRUE(Eventually([&] { return ra.started.load() == 1; }));
  auto b = Start(Config("b", rb));
  ASSERT_TRUE(clock_->WaitForSleepers(3, 10s));
  a->Stop();  // without a release: the lease stays a's until it expires
  ASSERT_EQ(ra.stopped.load(), 1);
  const int64_t last = store_->current()->version;
  int reads = store_->reads();
  int writes = store_->writes();
  Advance(16s, 1);
  ASSERT_TRUE(Eventually([&] { return rb.started.load() == 1; }));
  EXPECT_EQ(store_->reads(), reads);
  EXPECT_EQ(store_->writes(), writes + 1);
  EXPECT_EQ(store_->current()->record.holder_identity, "b");
  EXPECT_GT(rb.Term(0).fencing_token, static_cast<uint64_t>(last));
}

TEST_F(ElectorTest, TheStopTokenFiresBeforeExpiryWhenTheServerHangs) {
  Recorder rec;
  ElectionConfig c = Config("a", rec);
  c.health_tolerance = 0s;
  auto a = Start(std::move(c));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  LeaderElectionHealthCheck check;  // what a /healthz endpoint would report (not owning)
  check.Attach(std::shared_ptr<const Elector>(std::shared_ptr<const Elector>(), &a->elector()));
  EXPECT_TRUE(check.Check().ok());
  store_->SetHung(true);  // the next renewal blocks inside the lock call
  // The guard alone sleeps once the elector is stuck in the hung call.
  Advance(2s, 2, 1s);
  ASSERT_TRUE(Eventually([&] { return store_->hung_calls() == 1; }));
  Advance(12s, 1, 250ms);
  EXPECT_FALSE(rec.Token(0).stop_requested());  // 14 s: still inside the usable lease
  Advance(750ms, 1, 250ms);
  // Fired at 15 s x 0.99 - 100 ms = 14.75 s after the last renewal was sent.
  EXPECT_TRUE(Eventually([&] { return rec.Token(0).stop_requested(); }));
  EXPECT_FALSE(a->elector().IsLeader());  // no longer, although Run is stuck in the hung call
  EXPECT_FALSE(a->elector().CurrentTerm().has_value());
  Advance(1s, 0, 250ms);
  EXPECT_FALSE(a->elector().Healthy())  // leading on paper, not renewed for > 15 s
      << "leader " << a->elector().IsLeader() << " renewals " << a->elector().metrics().renew_total
      << " failed " << a->elector().metrics().failed_attempts_total;
  Status unhealthy = check.Check();
  EXPECT_EQ(unhealthy.reason(), Reason::kServiceUnavailable);
  EXPECT_NE(unhealthy.message().find("failed election to renew leadership on lease"),
            std::string::npos)
      << unhealthy.message();
  store_->SetHung(false);
  ASSERT_TRUE(Eventually([&] { return rec.stopped.load() == 1; }));
  EXPECT_FALSE(a->elector().IsLeader());
  EXPECT_TRUE(a->elector().Healthy());
  EXPECT_TRUE(check.Check().ok());
}

// A lock that can fail a spell of calls as a hung server does: the first call of the spell takes
// `hang` of the fake clock and times out, the others (the slow path's read) fail at once. It
// records when each update started and the timeout it got.
class HangingLock final : public Lock {
 public:
  HangingLock(std::shared_ptr<Lock> inner, std::shared_ptr<FakeClock> clock)
      : inner_(std::move(inner)), clock_(std::move(clock)) {}
  struct Call {
    Clock::TimePoint at;
    Timeout timeout;
  };
  void FailCalls(int calls, Clock::Duration hang) {
    std::lock_guard lock(mu_);
    failing_ = calls;
    hang_ = hang;
  }
  std::vector<Call> updates() const {
    std::lock_guard lock(mu_);
    return updates_;
  }
  Result<ObservedRecord> Get(Timeout timeout) override {
    if (Status s = Enter(timeout); !s.ok()) return s;
    return inner_->Get(timeout);
  }
  Result<ObservedRecord> Create(const LeaderElectionRecord& r, Timeout timeout) override {
    if (Status s = Enter(timeout); !s.ok()) return s;
    return inner_->Create(r, timeout);
  }
  Result<ObservedRecord> Update(const LeaderElectionRecord& r, Timeout timeout) override {
    {
      std::lock_guard lock(mu_);
      updates_.push_back({clock_->now(), timeout});
    }
    if (Status s = Enter(timeout); !s.ok()) return s;
    return inner_->Update(r, timeout);
  }
  std::string Identity() const override { return inner_->Identity(); }
  std::string Describe() const override { return inner_->Describe(); }
  std::unique_ptr<LockWatch> Watch(std::function<void(const ObservedRecord&)> fn) override {
    return inner_->Watch(std::move(fn));
  }

 private:
  Status Enter(Timeout timeout) {
    Clock::Duration hang{0};
    {
      std::lock_guard lock(mu_);
      if (failing_ == 0) return Status::Ok();
      --failing_;
      hang = std::min<Clock::Duration>(hang_, timeout);
      hang_ = Clock::Duration::zero();
    }
    if (hang.count() == 0) return Status::Unavailable("the server is unreachable");
    clock_->Advance(hang);
    return Status::Timeout("the server did not answer in time");
  }

  std::shared_ptr<Lock> inner_;
  std::shared_ptr<FakeClock> clock_;
  mutable std::mutex mu_;
  int failing_ = 0;
  Clock::Duration hang_{0};
  std::vector<Call> updates_;
};

// A leader that must stop long before its renew deadline (a large safety margin, as `tenure
// run` keeps for its command's grace period) gives a renewal only the time left until it must
// stop, and after a renewal that timed out tries again at once, not a retry period later: one
// hung request then costs it the term only when nothing could have saved it.
TEST_F(ElectorTest, ARenewalGetsOnlyTheTimeLeftInTheTermAndASlowFailureIsRetriedAtOnce) {
  Recorder rec;
  ElectionConfig c = Config("a", rec);
  auto hanging = std::make_shared<HangingLock>(c.lock, clock_);
  c.lock = hanging;
  c.safety_margin = 9s;  // must stop 15 s x 0.99 - 9 s = 5.85 s after a renewal was sent
  auto a = Start(std::move(c));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  const Clock::TimePoint acquired = clock_->now();
  // The first renewal, 2 s after the acquisition, hangs for 2.5 s; its read fails at once.
  hanging->FailCalls(2, 2500ms);
  Advance(2s, 2, 2s);
  ASSERT_TRUE(Eventually([&] { return hanging->updates().size() >= 2; }, 5s))
      << "no second attempt without another retry period";
  std::vector<HangingLock::Call> calls = hanging->updates();
  EXPECT_EQ(calls[0].at - acquired, 2s);
  auto near = [](Clock::Duration got, Clock::Duration want) {
    return got - want < 1ms && want - got < 1ms;
  };
  EXPECT_TRUE(near(calls[0].timeout, 3850ms))  // not the 10 s renew deadline
      << calls[0].timeout.count() << " ns";
  EXPECT_EQ(calls[1].at - acquired, 4500ms);
  EXPECT_TRUE(near(calls[1].timeout, 1350ms)) << calls[1].timeout.count() << " ns";
  ASSERT_TRUE(Eventually([&] { return a->elector().metrics().renew_total >= 2; }));
  EXPECT_FALSE(rec.Token(0).stop_requested());
  EXPECT_TRUE(a->elector().IsLeader());
}

// A leader without a watch learns at its next renewal (fast path Conflict, then GET) that the
// lease was given away: the term ends then, not at the renew deadline, and a released lease is
// not taken back within the old term.
TEST_F(ElectorTest, ALeaderThatReadsItsLeaseReleasedStopsAndDoesNotTakeItBack) {
  Recorder rec;
  auto a = Start(Config("a", rec, /*watch=*/false));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  LeaderElectionRecord forced = store_->current()->record;
  forced.holder_identity = "";  // an operator's forced release
  store_->Put(forced);
  Advance(2s, 2);  // a's next renewal
  ASSERT_TRUE(Eventually([&] { return rec.Token(0).stop_requested(); }));
  ASSERT_TRUE(Eventually([&] { return rec.stopped.load() == 1; }));
  EXPECT_EQ(store_->current()->record.holder_identity, "");
}

TEST_F(ElectorTest, ALeaderThatReadsAnotherHolderStopsAtOnceNotAtItsRenewDeadline) {
  Recorder rec;
  auto a = Start(Config("a", rec, /*watch=*/false));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  LeaderElectionRecord taken = store_->current()->record;
  taken.holder_identity = "b";  // b took the lease (after a forced release, say)
  store_->Put(taken);
  Advance(2s, 2);  // a's next renewal reads it; its renew deadline is 10 s away
  ASSERT_TRUE(Eventually([&] { return rec.Token(0).stop_requested(); }));
  EXPECT_EQ(store_->current()->record.holder_identity, "b");
}

TEST_F(ElectorTest, FencingTokensIncreaseAcrossTermsOfTheSameIdentity) {
  Recorder rec;
  ElectionConfig c = Config("a", rec);
  c.recontend_after = 3s;
  auto a = Start(std::move(c));
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  ASSERT_TRUE(clock_->WaitForSleepers(2, 10s));  // the elector and the term's deadline timer
  store_->SetFailure(Status::Unavailable("down"));
  Advance(12s, 2);  // renewals fail from 2 s on; the term ends at 2 s + renew deadline
  ASSERT_TRUE(Eventually([&] { return rec.stopped.load() == 1; }));
  store_->SetFailure(Status::Ok());
  Advance(4s, 1);  // campaigns again 3 s after the term ended
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 2; }));
  EXPECT_GT(rec.Term(1).fencing_token, rec.Term(0).fencing_token);
}

TEST_F(ElectorTest, CoordinatedModeNeverCreatesAndStopsAtPreferredHolder) {
  Recorder rec;
  ElectionConfig c = Config("a", rec);
  c.coordinated = true;
  auto a = Start(std::move(c));
  Advance(6s, 1);
  EXPECT_FALSE(store_->current().has_value());  // nothing created
  EXPECT_EQ(rec.started.load(), 0);
  LeaderElectionRecord assigned;
  assigned.holder_identity = "a";
  assigned.lease_duration_seconds = 5;
  assigned.strategy = "OldestEmulationVersion";
  store_->Put(assigned);  // the controller assigns the lease
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  EXPECT_EQ(store_->current()->record.strategy, "OldestEmulationVersion");
  LeaderElectionRecord preempted = store_->current()->record;
  preempted.preferred_holder = "b";
  store_->Put(preempted);
  // The watch shows preferredHolder: the term ends and a releases without waiting for the next
  // renewal (coordinated_elector_test.cc covers the watchless path).
  ASSERT_TRUE(Eventually([&] { return rec.stopped.load() == 1; }));
  auto released = store_->current()->record;
  EXPECT_EQ(released.holder_identity, "");  // never writes another holder, only releases
  EXPECT_EQ(released.strategy, "OldestEmulationVersion");
  EXPECT_EQ(released.preferred_holder, "b");
}

}  // namespace
}  // namespace tenure

namespace tenure {
namespace {

TEST_F(ElectorTest, MetricsAreExposedWithKubernetesNames) {
  Recorder rec;
  ElectionConfig c = Config("a", rec);
  c.name = "my \"election\"";
  auto elector = Elector::Create(std::move(c));
  ASSERT_TRUE(elector.ok());
  std::shared_ptr<Elector> shared(std::move(*elector));
  ElectionHandle handle(shared);
  ASSERT_TRUE(Eventually([&] { return rec.started.load() == 1; }));
  std::string text = RenderPrometheusMetrics({shared.get()});
  EXPECT_NE(text.find("# TYPE leader_election_master_status gauge\n"), std::string::npos);
  EXPECT_NE(text.find("leader_election_master_status{name=\"my \\\"election\\\"\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("leader_election_slowpath_total{name=\"my \\\"election\\\"\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("leader_election_transitions_total{name=\"my \\\"election\\\"\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE leader_election_renew_duration_seconds histogram\n"),
            std::string::npos);
  EXPECT_NE(text.find("tenure_build_info{version=\"" + std::string(Version()) + "\"} 1\n"),
            std::string::npos);
  // Renewals land in the histogram: its +Inf bucket and count are the renewals so far, and the
  // buckets never decrease.
  Advance(3s, 2);
  ElectorMetrics m = shared->metrics();
  ASSERT_GT(m.renew_duration_count, 0u);
  text = RenderPrometheusMetrics({shared.get()});
  const std::string prefix = "leader_election_renew_duration_seconds";
  const std::string label = "{name=\"my \\\"election\\\"\"";
  EXPECT_NE(text.find(prefix + "_bucket" + label + ",le=\"+Inf\"} " +
                      std::to_string(m.renew_duration_count) + "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(prefix + "_count" + label + "} " + std::to_string(m.renew_duration_count)),
            std::string::npos);
  uint64_t previous = 0;
  size_t at = 0;
  int buckets = 0;
  while ((at = text.find(prefix + "_bucket", at)) != std::string::npos) {
    size_t space = text.find("} ", at);
    uint64_t count = std::stoull(text.substr(space + 2));
    EXPECT_GE(count, previous);
    previous = count;
    ++buckets;
    ++at;
  }
  EXPECT_EQ(buckets, static_cast<int>(kRenewDurationBuckets.size()) + 1);
}

}  // namespace
// Losing the race to create the lock (another candidate created it between our read and our
// create) is how the algorithm works, like a Conflict on update: not an error to report.
TEST_F(ElectorTest, LosingTheRaceToCreateTheLockIsNotAnError) {
  // Reads see no record until the other candidate's create lands first.
  class CreateRaceLock : public Lock {
   public:
    CreateRaceLock(std::shared_ptr<MemoryLockStore> store)
        : mine_(store, "a", false), rival_(store, "b", false) {}
    Result<ObservedRecord> Get(Timeout timeout) override { return mine_.Get(timeout); }
    Result<ObservedRecord> Create(const LeaderElectionRecord& record, Timeout timeout) override {
      if (!raced_) {
        raced_ = true;
        LeaderElectionRecord theirs = record;
        theirs.holder_identity = "b";
        (void)rival_.Create(theirs, timeout);
      }
      return mine_.Create(record, timeout);
    }
    Result<ObservedRecord> Update(const LeaderElectionRecord& record, Timeout timeout) override {
      return mine_.Update(record, timeout);
    }
    std::string Identity() const override { return "a"; }
    std::string Describe() const override { return "memory/race"; }

   private:
    MemoryLock mine_, rival_;
    bool raced_ = false;
  };
  Recorder rec;
  ElectionConfig c = Config("a", rec, false);
  c.lock = std::make_shared<CreateRaceLock>(store_);
  std::vector<std::string> errors;
  std::mutex mu;
  c.callbacks.on_error = [&](const Status& s) {
    std::lock_guard lock(mu);
    errors.push_back(s.ToString());
  };
  auto elector = Elector::Create(c);
  ASSERT_TRUE(elector.ok());
  std::shared_ptr<Elector> shared(std::move(*elector));
  ElectionHandle handle(shared);
  Advance(5s, 1);  // the lost create, then a retry (at most 2.2 retry periods later) reading b
  ASSERT_TRUE(Eventually([&] { return shared->Leader() == "b"; }));
  EXPECT_TRUE(shared->LastError().ok()) << shared->LastError().ToString();
  std::lock_guard lock(mu);
  EXPECT_TRUE(errors.empty()) << errors.front();
}

// A candidate that may not use the lock says why, once per distinct error, and keeps trying:
// the server's 403 names the missing right.
TEST_F(ElectorTest, ErrorsAreReportedOncePerDistinctErrorAndKeptAsLastError) {
  Recorder rec;
  ElectionConfig c = Config("a", rec);
  std::mutex mu;
  std::vector<std::string> errors;
  c.callbacks.on_error = [&](const Status& s) {
    std::lock_guard lock(mu);
    errors.push_back(s.message());
  };
  const Status forbidden(Reason::kForbidden,
                         "leases.coordination.k8s.io \"l\" is forbidden: User \"u\" cannot get "
                         "resource \"leases\"");
  store_->SetFailure(forbidden);
  auto elector = Elector::Create(c);
  ASSERT_TRUE(elector.ok());
  std::shared_ptr<Elector> shared(std::move(*elector));
  ElectionHandle handle(shared);
  Advance(10s, 1);  // several attempts, all refused
  EXPECT_EQ(shared->LastError().reason(), Reason::kForbidden);
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(errors, std::vector<std::string>{forbidden.message()});
  }
  store_->SetFailure(Status::Ok());
  ASSERT_TRUE(Eventually([&] {
    clock_->Advance(500ms);
    return rec.started.load() == 1;
  }));
  EXPECT_TRUE(shared->LastError().ok());
  store_->SetFailure(Status::Unavailable("the server is unreachable"));
  ASSERT_TRUE(Eventually([&] {
    clock_->Advance(500ms);
    std::lock_guard lock(mu);
    return errors.size() == 2;
  }));
  std::lock_guard lock(mu);
  EXPECT_EQ(errors[1], "the server is unreachable");
}

}  // namespace tenure
