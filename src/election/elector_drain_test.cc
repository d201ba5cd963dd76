// Graceful handovers drain before they release (release on cancel, Yield, coordinated
// preemption), and the stop deadline of every accepted configuration comes before the lease
// expires as the record states it. FakeClock and MemoryLocks; time moves only while the code
// under test sleeps.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "tenure/elector.h"
#include "tenure/fake_clock.h"
#include "tenure/memory_lock.h"
#include "tenure/testing/waits.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;

// Leader work that, once its stop token fired, keeps going until the test lets it finish.
class SlowWork {
 public:
  void Run(std::stop_token stop, const LeaderTerm& term) {
    std::unique_lock lock(mu_);
    terms_.push_back(term);
    ++started_;
    cv_.notify_all();
    cv_.wait(lock, stop, [] { return false; });
    ++stopping_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return finish_; });
    ++ended_;
  }
  void Finish() {
    std::lock_guard lock(mu_);
    finish_ = true;
    cv_.notify_all();
  }
  int started() const {
    std::lock_guard lock(mu_);
    return started_;
  }
  int stopping() const {
    std::lock_guard lock(mu_);
    return stopping_;
  }
  int ended() const {
    std::lock_guard lock(mu_);
    return ended_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  std::vector<LeaderTerm> terms_;
  int started_ = 0, stopping_ = 0, ended_ = 0;
  bool finish_ = false;
};

// Lets the work finish when a test leaves early, so no thread that joins it hangs.
struct FinishAtExit {
  SlowWork& work;
  ~FinishAtExit() { work.Finish(); }
};

class ElectorDrainTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::shared_ptr<MemoryLockStore> store_ = std::make_shared<MemoryLockStore>();

  ElectionConfig Config(const std::string& identity, SlowWork& work) {
    ElectionConfig c;
    c.lock = std::make_shared<MemoryLock>(store_, identity);
    c.clock = clock_;
    c.callbacks.on_started_leading = [&work](std::stop_token stop, const LeaderTerm& term) {
      work.Run(stop, term);
    };
    c.callbacks.on_stopped_leading = [] {};
    return c;
  }

  std::shared_ptr<Elector> Make(ElectionConfig config) {
    auto elector = Elector::Create(std::move(config));
    EXPECT_TRUE(elector.ok()) << elector.status().ToString();
    return std::shared_ptr<Elector>(std::move(*elector));
  }

  std::string Holder() const { return store_->current()->record.holder_identity; }

  // Moves the fake clock by `total` in steps, each once `sleepers` threads sleep on it (a
  // draining leader, a watching follower, the deadline timer of the draining term's guard).
  void Advance(std::chrono::nanoseconds total, int sleepers,
               std::chrono::nanoseconds step = 250ms) {
    ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock_, total, sleepers, step));
  }
};

TEST_F(ElectorDrainTest, ReleaseOnCancelRenewsUntilTheWorkStoppedThenReleases) {
  SlowWork a_work, b_work;
  ElectionConfig ca = Config("a", a_work);
  ca.release_on_cancel = true;
  auto a = std::make_unique<ElectionHandle>(Make(std::move(ca)));
  ASSERT_TRUE(Eventually([&] { return a_work.started() == 1; }));
  auto b = std::make_unique<ElectionHandle>(Make(Config("b", b_work)));
  std::jthread stopper([&] { a->Stop(); });  // blocks while a drains
  FinishAtExit finish_a{a_work}, finish_b{b_work};
  ASSERT_TRUE(Eventually([&] { return a_work.stopping() == 1; }));
  EXPECT_FALSE(a->elector().IsLeader());  // the token fired: a no longer acts as leader...
  int writes = store_->writes();
  Advance(6s, 3);  // ...but keeps renewing the lease while its work winds down
  EXPECT_GE(store_->writes() - writes, 2) << "a renewed while draining";
  EXPECT_EQ(Holder(), "a");
  EXPECT_EQ(b_work.started(), 0);
  a_work.Finish();
  stopper.join();  // a released once the work returned
  ASSERT_TRUE(Eventually([&] { return b_work.started() == 1; }));
  EXPECT_EQ(a_work.ended(), 1);
  EXPECT_EQ(Holder(), "b");
  b_work.Finish();
}

TEST_F(ElectorDrainTest, APromptCallbackIsReleasedWithoutTheClockMoving) {
  SlowWork a_work, b_work;
  a_work.Finish();  // returns as soon as its token fires
  ElectionConfig ca = Config("a", a_work);
  ca.release_on_cancel = true;
  auto a = std::make_unique<ElectionHandle>(Make(std::move(ca)));
  ASSERT_TRUE(Eventually([&] { return a_work.started() == 1; }));
  auto b = std::make_unique<ElectionHandle>(Make(Config("b", b_work)));
  FinishAtExit finish_b{b_work};
  ASSERT_TRUE(clock_->WaitForSleepers(3, 10s));
  a->Stop();
  ASSERT_TRUE(Eventually([&] { return b_work.started() == 1; }));
  b_work.Finish();
}

TEST_F(ElectorDrainTest, PastTheDrainTimeoutTheLeaseIsLeftToExpireNotReleased) {
  SlowWork a_work, b_work;
  ElectionConfig ca = Config("a", a_work);
  ca.release_on_cancel = true;
  ca.drain_timeout = 3s;
  auto a = std::make_unique<ElectionHandle>(Make(std::move(ca)));
  ASSERT_TRUE(Eventually([&] { return a_work.started() == 1; }));
  auto b = std::make_unique<ElectionHandle>(Make(Config("b", b_work)));
  std::jthread stopper([&] { a->Stop(); });
  FinishAtExit finish_a{a_work}, finish_b{b_work};
  ASSERT_TRUE(Eventually([&] { return a_work.stopping() == 1; }));
  Advance(3s, 3);
  stopper.join();  // gave up draining after 3 s, without releasing
  EXPECT_EQ(Holder(), "a");
  EXPECT_EQ(b_work.started(), 0);
  Advance(10s, 1);  // still within 15 s of a's last renewal
  EXPECT_EQ(b_work.started(), 0);
  Advance(8s, 1);  // b takes the expired lease
  ASSERT_TRUE(Eventually([&] { return b_work.started() == 1; }));
  a_work.Finish();
  b_work.Finish();
}

TEST_F(ElectorDrainTest, YieldDrainsBeforeItReleases) {
  SlowWork a_work, b_work;
  ElectionConfig ca = Config("a", a_work);
  ca.recontend_after = 30s;
  auto a = Make(std::move(ca));
  ElectionHandle a_handle(a);
  ASSERT_TRUE(Eventually([&] { return a_work.started() == 1; }));
  ElectionHandle b_handle(Make(Config("b", b_work)));
  FinishAtExit finish_a{a_work}, finish_b{b_work};
  a->Yield();
  ASSERT_TRUE(Eventually([&] { return a_work.stopping() == 1; }));
  Advance(4s, 3);
  EXPECT_EQ(Holder(), "a");
  EXPECT_EQ(b_work.started(), 0);
  a_work.Finish();
  ASSERT_TRUE(Eventually([&] { return b_work.started() == 1; }));
  EXPECT_EQ(Holder(), "b");
  b_work.Finish();
}

TEST_F(ElectorDrainTest, APreemptedCoordinatedLeaderKeepsRenewingUntilItsWorkStopped) {
  SlowWork a_work;
  ElectionConfig ca = Config("a", a_work);
  ca.coordinated = true;
  auto a = std::make_unique<ElectionHandle>(Make(std::move(ca)));
  FinishAtExit finish_a{a_work};
  LeaderElectionRecord assigned;
  assigned.holder_identity = "a";
  assigned.lease_duration_seconds = 15;
  assigned.strategy = "OldestEmulationVersion";
  store_->Put(assigned);  // the controller assigns the lease
  ASSERT_TRUE(Eventually([&] { return a_work.started() == 1; }));
  LeaderElectionRecord preempted = store_->current()->record;
  preempted.preferred_holder = "b";
  store_->Put(preempted);  // ... and prefers b
  ASSERT_TRUE(Eventually([&] { return a_work.stopping() == 1; }));
  int writes = store_->writes();
  Advance(6s, 2);
  EXPECT_GE(store_->writes() - writes, 2);
  auto held = store_->current()->record;
  EXPECT_EQ(held.holder_identity, "a");   // not released while the work runs
  EXPECT_EQ(held.preferred_holder, "b");  // the controller's field is kept
  a_work.Finish();
  ASSERT_TRUE(Eventually([&] { return Holder().empty(); }));
  EXPECT_EQ(store_->current()->record.preferred_holder, "b");
}

TEST_F(ElectorDrainTest, ADrainEndsWhenTheLeaseIsGivenAwayAndNeverTakesItBack) {
  SlowWork a_work;
  ElectionConfig ca = Config("a", a_work);
  ca.release_on_cancel = true;
  auto a = std::make_unique<ElectionHandle>(Make(std::move(ca)));
  ASSERT_TRUE(Eventually([&] { return a_work.started() == 1; }));
  std::jthread stopper([&] { a->Stop(); });
  FinishAtExit finish_a{a_work};
  ASSERT_TRUE(Eventually([&] { return a_work.stopping() == 1; }));
  LeaderElectionRecord forced = store_->current()->record;
  forced.holder_identity = "";  // an operator's forced release
  store_->Put(forced);
  int writes = store_->writes();
  stopper.join();  // the drain ended (Run returned) without the fake clock moving
  EXPECT_EQ(store_->writes(), writes);  // no renewal, no release
  EXPECT_EQ(Holder(), "");
  a_work.Finish();
}

TEST(ElectorDeadlineTest, LeaseDurationMustBeAWholeNumberOfSeconds) {
  ElectionConfig c;
  c.lock = std::make_shared<MemoryLock>(std::make_shared<MemoryLockStore>(), "me");
  c.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
  c.callbacks.on_stopped_leading = [] {};
  c.lease_duration = 2500ms;
  c.renew_deadline = 2200ms;
  c.retry_period = 400ms;
  Status s = ValidateElectionConfig(c);
  EXPECT_EQ(s.reason(), Reason::kInvalid);
  EXPECT_EQ(s.message(),
            "leaseDuration must be a whole number of seconds: the lock records "
            "leaseDurationSeconds, and that is how long other candidates wait (2.5s would be "
            "read as 2s, before this leader would stop)");
  c.lease_duration = 1s;
  c.renew_deadline = 900ms;
  c.retry_period = 700ms;
  c.safety_margin = 300ms;
  EXPECT_EQ(ValidateElectionConfig(c).message(),
            "leaseDuration x (1 - maxClockRateDrift) - safetyMargin (0.69s) must be greater than "
            "retryPeriod (0.7s): a leader must be able to renew before it has to stop");
  c.retry_period = 200ms;
  c.drain_timeout = -1s;
  EXPECT_EQ(ValidateElectionConfig(c).message(), "drainTimeout must not be negative");
  c.drain_timeout = 0s;
  EXPECT_TRUE(ValidateElectionConfig(c).ok());
}

// A lock whose record keeps whole seconds, as a ConfigMap's leader annotation does, and whose
// server keeps a write that changes nothing as a no-op (same version, no watch event): a leader
// renewing every 250 ms changes the record once a second only.
class WholeSecondLock final : public Lock {
 public:
  WholeSecondLock(std::shared_ptr<MemoryLockStore> store, std::string identity)
      : store_(store), inner_(std::move(store), std::move(identity), /*supports_watch=*/false) {}
  Result<ObservedRecord> Get(Timeout timeout) override { return inner_.Get(timeout); }
  Result<ObservedRecord> Create(const LeaderElectionRecord& record, Timeout timeout) override {
    return inner_.Create(Seconds(record), timeout);
  }
  Result<ObservedRecord> Update(const LeaderElectionRecord& record, Timeout timeout) override {
    auto current = store_->current();
    if (current && current->record == Seconds(record)) return *current;  // a no-op write
    return inner_.Update(Seconds(record), timeout);
  }
  std::string Identity() const override { return inner_.Identity(); }
  std::string Describe() const override { return "whole-second/" + inner_.Identity(); }

 private:
  static LeaderElectionRecord Seconds(LeaderElectionRecord r) {
    r.acquire_time = std::chrono::floor<std::chrono::seconds>(r.acquire_time);
    r.renew_time = std::chrono::floor<std::chrono::seconds>(r.renew_time);
    return r;
  }
  std::shared_ptr<MemoryLockStore> store_;
  MemoryLock inner_;
};

// Others restart their count when the record changes, so the stop deadline counts from the
// last renewal that changed it, not from the last one that succeeded.
TEST(ElectorDeadlineTest, ARenewalThatChangesNothingDoesNotMoveTheStopDeadline) {
  auto clock = std::make_shared<FakeClock>();  // starts on a whole second
  auto store = std::make_shared<MemoryLockStore>();
  std::mutex mu;
  std::optional<std::stop_token> token;
  ElectionConfig c;
  c.lock = std::make_shared<WholeSecondLock>(store, "a");
  c.clock = clock;
  c.lease_duration = 2s;
  c.renew_deadline = 1500ms;
  c.retry_period = 250ms;
  c.callbacks.on_started_leading = [&](std::stop_token stop, const LeaderTerm&) {
    std::lock_guard lock(mu);
    token = stop;
  };
  c.callbacks.on_stopped_leading = [] {};
  auto elector = Elector::Create(c);
  ASSERT_TRUE(elector.ok()) << elector.status().ToString();
  Clock::TimePoint start = clock->now();
  ElectionHandle handle(std::shared_ptr<Elector>(std::move(*elector)));
  auto fired = [&] {
    std::lock_guard lock(mu);
    return token && token->stop_requested();
  };
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return token.has_value();
  }));
  // Renewals at 0.25 s steps; the record changes at 0 s and 1 s only. Cut off at 1.6 s.
  for (auto step = 10ms; clock->now() - start < 1600ms;) {
    ASSERT_TRUE(Eventually([&] { return clock->sleepers() >= 2; }));
    clock->Advance(step);
  }
  store->SetFailure(Status::Unavailable("partitioned"));
  while (!fired()) {
    ASSERT_TRUE(Eventually([&] { return fired() || clock->sleepers() >= 2; }));
    if (fired()) break;
    clock->Advance(10ms);
  }
  // The record last changed at 1 s: others may take over at 3 s; the token is due at 2.88 s
  // (from the renewal sent at 1.5 s, which changed nothing, it would be 3.38 s).
  EXPECT_LE(clock->now() - start, 1s + 1880ms + 10ms);
}

struct Timings {
  std::chrono::milliseconds lease, renew, retry;
};

class ElectorDeadlineTest : public ::testing::TestWithParam<Timings> {};

// A leader cut off from the server right after it acquired: its token must fire before the
// lease runs out as the record states it, by the drift and margin it promises.
TEST_P(ElectorDeadlineTest, TheTokenFiresBeforeTheRecordedLeaseRunsOut) {
  auto clock = std::make_shared<FakeClock>();
  auto store = std::make_shared<MemoryLockStore>();
  std::mutex mu;
  std::optional<std::stop_token> token;
  ElectionConfig c;
  c.lock = std::make_shared<MemoryLock>(store, "a");
  c.clock = clock;
  c.lease_duration = GetParam().lease;
  c.renew_deadline = GetParam().renew;
  c.retry_period = GetParam().retry;
  c.callbacks.on_started_leading = [&](std::stop_token stop, const LeaderTerm&) {
    std::lock_guard lock(mu);
    token = stop;
  };
  c.callbacks.on_stopped_leading = [] {};
  auto elector = Elector::Create(c);
  ASSERT_TRUE(elector.ok()) << elector.status().ToString();
  Clock::TimePoint acquired = clock->now();  // the fake clock stands still until we move it
  ElectionHandle handle(std::shared_ptr<Elector>(std::move(*elector)));
  auto fired = [&] {
    std::lock_guard lock(mu);
    return token && token->stop_requested();
  };
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return token.has_value();
  }));
  store->SetFailure(Status::Unavailable("partitioned"));
  auto recorded = std::chrono::seconds(store->current()->record.lease_duration_seconds);
  // In 5 ms steps, each once the elector and the deadline timer sleep again: the token fires in
  // the first step that reaches its deadline.
  while (!fired()) {
    ASSERT_TRUE(Eventually([&] { return fired() || clock->sleepers() >= 2; }));
    if (fired()) break;
    ASSERT_LT(clock->now() - acquired, recorded) << "the token has not fired";
    clock->Advance(5ms);
  }
  auto fired_by = clock->now() - acquired;
  auto promised =
      std::chrono::duration_cast<Clock::Duration>(recorded * (1 - c.max_clock_rate_drift)) -
      c.safety_margin;
  EXPECT_LE(fired_by, promised + 5ms);
  EXPECT_LT(fired_by, recorded);
}

INSTANTIATE_TEST_SUITE_P(AcceptedTimings, ElectorDeadlineTest,
                         ::testing::Values(Timings{1000ms, 800ms, 200ms},
                                           Timings{2000ms, 1500ms, 250ms},
                                           Timings{3000ms, 2000ms, 500ms},
                                           Timings{15000ms, 10000ms, 2000ms},
                                           Timings{20000ms, 19000ms, 2000ms}));

}  // namespace
}  // namespace tenure
