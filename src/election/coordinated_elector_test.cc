// The elector's coordinated mode (ElectionConfig::coordinated) with a FakeClock and MemoryLocks:
// the test plays the server's election controller by writing the record directly.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "tenure/elector.h"
#include "tenure/fake_clock.h"
#include "tenure/memory_lock.h"
#include "tenure/testing/election_recorder.h"
#include "tenure/testing/waits.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;

using Terms = testing::ElectionRecorder;

class CoordinatedElectorTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::shared_ptr<MemoryLockStore> store_ = std::make_shared<MemoryLockStore>();

  std::unique_ptr<ElectionHandle> Start(const std::string& identity, Terms& t,
                                        std::optional<std::chrono::nanoseconds> recontend = {},
                                        bool watch = true) {
    ElectionConfig c;
    c.lock = std::make_shared<MemoryLock>(store_, identity, watch);
    c.clock = clock_;
    c.coordinated = true;
    c.recontend_after = recontend;
    t.Attach(c.callbacks);
    auto elector = Elector::Create(std::move(c));
    EXPECT_TRUE(elector.ok()) << elector.status().ToString();
    return std::make_unique<ElectionHandle>(std::shared_ptr<Elector>(std::move(*elector)));
  }

  // What the controller writes when it assigns the lease.
  void Assign(const std::string& holder) {
    LeaderElectionRecord r;
    r.holder_identity = holder;
    r.lease_duration_seconds = 5;
    r.renew_time = clock_->wall_now();
    r.leader_transitions = 3;
    r.strategy = "OldestEmulationVersion";
    store_->Put(r);
  }
  // Starts candidate "a" and has the controller assign it the lease; returns once it leads.
  std::unique_ptr<ElectionHandle> StartLeading(
      Terms& t, std::optional<std::chrono::nanoseconds> recontend = {}) {
    auto a = Start("a", t, recontend);
    Assign("a");
    EXPECT_TRUE(Eventually([&] { return t.started.load() == 1; }));
    return a;
  }
  // What the controller writes to end the holder's term (preemption).
  void Prefer(const std::string& winner) {
    LeaderElectionRecord r = store_->current()->record;
    r.preferred_holder = winner;
    store_->Put(r);
  }
  void Advance(std::chrono::nanoseconds total, int sleepers) {
    ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock_, total, sleepers))
        << "sleepers: " << clock_->sleepers();
  }
};

TEST_F(CoordinatedElectorTest, NeverCreatesNorTakesAFreeOrExpiredLease) {
  Terms t;
  auto a = Start("a", t);
  Advance(10s, 1);
  EXPECT_FALSE(store_->current().has_value());  // no lease: nothing created
  LeaderElectionRecord free;
  free.lease_duration_seconds = 5;
  free.strategy = "OldestEmulationVersion";
  store_->Put(free);  // no holder: only the controller may assign it
  Advance(10s, 1);
  EXPECT_EQ(store_->current()->record.holder_identity, "");
  Assign("b");
  Advance(20s, 1);  // b's lease expired long ago: still not ours to take
  EXPECT_EQ(store_->current()->record.holder_identity, "b");
  EXPECT_EQ(t.started.load(), 0);
  EXPECT_FALSE(a->elector().IsLeader());
}

TEST_F(CoordinatedElectorTest, RenewsAnAssignedLeaseOnTheFastPathKeepingTheControllersFields) {
  Terms t;
  auto a = StartLeading(t);
  auto record = store_->current()->record;
  EXPECT_EQ(record.holder_identity, "a");
  EXPECT_EQ(record.strategy, "OldestEmulationVersion");
  EXPECT_EQ(record.leader_transitions, 3);       // the controller's count is kept
  EXPECT_EQ(record.lease_duration_seconds, 15);  // ours, as the term deadline assumes
  EXPECT_EQ(t.Term(0).fencing_token, static_cast<uint64_t>(store_->current()->version));
  int reads = store_->reads();
  int writes = store_->writes();
  Advance(10s, 2);  // the elector and the term's deadline timer sleep between renewals
  ASSERT_TRUE(Eventually([&] { return store_->writes() - writes >= 5; }));
  EXPECT_EQ(store_->reads(), reads);  // no GET before a renewal (client-go does one each time)
  EXPECT_EQ(a->elector().metrics().slow_path_total, 0u);
  EXPECT_EQ(store_->current()->record.renew_time, clock_->wall_now());
  EXPECT_TRUE(a->elector().IsLeader());
}

TEST_F(CoordinatedElectorTest, PreferredHolderEndsTheTermAtOnceAndTheLeaderReleases) {
  Terms t;
  auto a = StartLeading(t);
  ASSERT_TRUE(clock_->WaitForSleepers(2, 10s));
  Prefer("b");
  // The watch ends the term without the clock moving: no wait for the next renewal.
  ASSERT_TRUE(Eventually([&] { return t.stopped.load() == 1; }));
  EXPECT_TRUE(t.Token(0).stop_requested());
  EXPECT_FALSE(a->elector().IsLeader());
  auto released = store_->current()->record;
  EXPECT_EQ(released.holder_identity, "");  // released, never handed to anyone by us
  EXPECT_EQ(released.lease_duration_seconds, 1);
  EXPECT_EQ(released.strategy, "OldestEmulationVersion");
  EXPECT_EQ(released.preferred_holder, "b");  // the controller assigns b next
  EXPECT_EQ(released.leader_transitions, 3);
}

TEST_F(CoordinatedElectorTest, WithoutAWatchTheNextRenewalConflictsReadsAndStops) {
  Terms t;
  Assign("a");  // before the start: without a watch nothing would wake the first retry
  auto a = Start("a", t, {}, /*watch=*/false);
  ASSERT_TRUE(Eventually([&] { return t.started.load() == 1; }));
  ASSERT_TRUE(clock_->WaitForSleepers(2, 10s));
  Prefer("b");
  Advance(2s, 2);  // next renewal: Conflict on the cached version, GET, end of term
  ASSERT_TRUE(Eventually([&] { return t.stopped.load() == 1; }));
  EXPECT_EQ(a->elector().metrics().slow_path_total, 1u);
  EXPECT_EQ(store_->current()->record.holder_identity, "");
  EXPECT_EQ(store_->current()->record.preferred_holder, "b");
}

TEST_F(CoordinatedElectorTest, ALeaseGivenToAnotherEndsTheTermWithoutARelease) {
  Terms t;
  auto a = StartLeading(t);
  Assign("b");  // e.g. an operator or a controller that judged a's lease expired
  ASSERT_TRUE(Eventually([&] { return t.stopped.load() == 1; }));
  EXPECT_TRUE(t.Token(0).stop_requested());
  EXPECT_EQ(store_->current()->record.holder_identity, "b");  // untouched
}

TEST_F(CoordinatedElectorTest, APreemptedCandidateStaysACandidateAndLeadsWhenAssignedAgain) {
  Terms t;
  auto a = StartLeading(t, 2s);
  Prefer("b");
  ASSERT_TRUE(Eventually([&] { return t.stopped.load() == 1; }));
  Assign("b");
  Advance(10s, 1);
  EXPECT_EQ(t.started.load(), 1);
  Assign("a");  // b went away; the controller picks a again
  ASSERT_TRUE(Eventually([&] { return t.started.load() == 2; }));
  EXPECT_GT(t.Term(1).fencing_token, t.Term(0).fencing_token);
}

}  // namespace
}  // namespace tenure
