// Elections on an ElectionPool: many on a few threads, with Elector's guarantees (a term stops
// in time while every pool thread is stuck; a handover through the watch; stop at once).
#include "tenure/election_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "tenure/elector.h"
#include "tenure/fake_clock.h"
#include "tenure/memory_lock.h"
#include "tenure/testing/election_recorder.h"
#include "tenure/testing/waits.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;

// Threads of this process, from /proc/self/status.
int ProcessThreads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

std::shared_ptr<ElectionPool> Pool(size_t threads) {
  auto pool = ElectionPool::Create({.threads = threads});
  EXPECT_TRUE(pool.ok()) << pool.status().ToString();
  return *pool;
}

TEST(ElectionPoolTest, SettingsThatCannotWorkAreRefusedByName) {
  auto none = ElectionPool::Create({.threads = 0});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().reason(), Reason::kInvalid);
  EXPECT_NE(none.status().message().find("ElectionPoolOptions.threads"), std::string::npos);

  ElectionConfig config;
  config.lock = std::make_shared<MemoryLock>(std::make_shared<MemoryLockStore>(), "a");
  config.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
  config.callbacks.on_stopped_leading = [] {};
  auto without_pool = ElectionHandle::Start(config, nullptr);
  ASSERT_FALSE(without_pool.ok());
  EXPECT_NE(without_pool.status().message().find("pool"), std::string::npos);

  config.renew_deadline = config.lease_duration;  // the elector's own checks still apply
  auto invalid = ElectionHandle::Start(config, Pool(1));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().message(), "leaseDuration must be greater than renewDeadline");
}

// 200 elections of two candidates each on 2 threads: each gets one leader, and every leader
// keeps renewing, while the process runs no thread per elector (nor per on_new_leader).
TEST(ElectionPoolTest, ManyElectionsRunOnAFewThreadsAndEachKeepsOneLeader) {
  constexpr int kElections = 200;
  auto pool = Pool(2);
  int threads_before = ProcessThreads();
  std::atomic<int> leading{0};
  std::atomic<int> lost{0};
  std::atomic<int> leaders_seen{0};
  std::vector<std::shared_ptr<MemoryLockStore>> stores;
  std::vector<ElectionHandle> handles;
  std::atomic<bool> stopping{false};
  for (int i = 0; i < kElections; ++i) {
    stores.push_back(std::make_shared<MemoryLockStore>());
    for (const char* identity : {"a", "b"}) {
      ElectionConfig c;
      c.lock = std::make_shared<MemoryLock>(stores.back(), identity);
      c.lease_duration = 5s;
      c.renew_deadline = 4s;
      c.retry_period = 100ms;
      c.recontend_after = 100ms;
      c.callbacks.on_started_leading = [&](std::stop_token, const LeaderTerm&) { ++leading; };
      c.callbacks.on_stopped_leading = [&] {
        --leading;
        if (!stopping) ++lost;
      };
      c.callbacks.on_new_leader = [&](const std::string&) { ++leaders_seen; };
      auto handle = ElectionHandle::Start(std::move(c), pool);
      ASSERT_TRUE(handle.ok()) << handle.status().ToString();
      handles.push_back(std::move(*handle));
    }
  }
  ASSERT_TRUE(Eventually([&] { return leading.load() == kElections; }));
  // Each leader renews (a retry period apart) while the others wait on their watches.
  auto renewals = [&](const ElectionHandle& h) { return h.elector().metrics().renew_total; };
  ASSERT_TRUE(Eventually([&] {
    for (const ElectionHandle& h : handles) {
      if (h.elector().IsLeader() && renewals(h) < 5) return false;
    }
    return true;
  }));
  for (int i = 0; i < kElections; ++i) {
    int leaders = 0;
    for (int k = 0; k < 2; ++k) leaders += handles[2 * i + k].elector().IsLeader() ? 1 : 0;
    EXPECT_EQ(leaders, 1) << "election " << i;
  }
  EXPECT_EQ(lost.load(), 0);
  // Every elector heard of its election's leader, on the pool's threads.
  EXPECT_TRUE(Eventually([&] { return leaders_seen.load() == 2 * kElections; }));
  // The pool's 2 threads and the clock's timer thread; each term's on_started_leading thread has
  // returned at once (a few may still be ending).
  EXPECT_TRUE(Eventually([&] { return ProcessThreads() <= threads_before + 3; }))
      << ProcessThreads() << " threads, " << threads_before << " before";
  stopping = true;
  handles.clear();
  EXPECT_EQ(leading.load(), 0);
}

// The term's stop token is a timer's job, not the pool's: with the pool's only thread stuck in a
// call to a hung server, a second election's leader, which cannot even try to renew, still stops
// at 15 s x 0.99 - 100 ms after its last renewal.
TEST(ElectionPoolTest, ATermStopsInTimeWhileEveryPoolThreadIsStuckInACall) {
  auto clock = std::make_shared<FakeClock>();
  auto pool = Pool(1);
  auto store = std::make_shared<MemoryLockStore>();
  auto other_store = std::make_shared<MemoryLockStore>();
  testing::ElectionRecorder first, second;
  auto start = [&](std::shared_ptr<MemoryLockStore> s, testing::ElectionRecorder& rec) {
    ElectionConfig c;
    c.lock = std::make_shared<MemoryLock>(s, "a");
    c.clock = clock;
    rec.Attach(c.callbacks);
    c.callbacks.on_new_leader = nullptr;
    auto handle = ElectionHandle::Start(std::move(c), pool);
    EXPECT_TRUE(handle.ok()) << handle.status().ToString();
    return std::move(*handle);
  };
  ElectionHandle a = start(store, first);
  ElectionHandle b = start(other_store, second);
  ASSERT_TRUE(Eventually([&] { return first.started == 1 && second.started == 1; }));
  store->SetHung(true);
  other_store->SetHung(true);
  // Only the clock's timer thread sleeps on it; the pool's thread ends up in a hung call.
  ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock, 2500ms, 1, 500ms));
  ASSERT_TRUE(Eventually([&] { return store->hung_calls() + other_store->hung_calls() == 1; }));
  ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock, 12s, 1, 250ms));  // 14.5 s
  EXPECT_FALSE(first.Token(0).stop_requested());
  EXPECT_FALSE(second.Token(0).stop_requested());
  ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock, 250ms, 1, 250ms));  // 14.75 s
  EXPECT_TRUE(Eventually(
      [&] { return first.Token(0).stop_requested() && second.Token(0).stop_requested(); }));
  EXPECT_FALSE(a.elector().IsLeader());
  EXPECT_FALSE(b.elector().IsLeader());
  EXPECT_EQ(store->hung_calls() + other_store->hung_calls(), 1);  // still stuck, and stopped
  store->SetHung(false);
  other_store->SetHung(false);
}

// A graceful handover on a pool: the leader's stop wakes it, it drains and releases, and the
// follower's watch brings it the lease with no time passing on the clock.
TEST(ElectionPoolTest, AReleasedLeaseIsTakenThroughTheWatchAtOnce) {
  auto clock = std::make_shared<FakeClock>();
  auto pool = Pool(2);
  auto store = std::make_shared<MemoryLockStore>();
  testing::ElectionRecorder ra, rb;
  auto start = [&](const char* identity, testing::ElectionRecorder& rec) {
    ElectionConfig c;
    c.lock = std::make_shared<MemoryLock>(store, identity);
    c.clock = clock;
    c.release_on_cancel = true;
    rec.Attach(c.callbacks);
    auto handle = ElectionHandle::Start(std::move(c), pool);
    EXPECT_TRUE(handle.ok()) << handle.status().ToString();
    return std::make_unique<ElectionHandle>(std::move(*handle));
  };
  auto a = start("a", ra);
  ASSERT_TRUE(Eventually([&] { return ra.started == 1; }));
  auto b = start("b", rb);
  ASSERT_TRUE(Eventually([&] { return b->elector().Leader() == "a"; }));
  a.reset();  // stops, drains, releases; returns once a's election has ended
  EXPECT_EQ(ra.stopped.load(), 1);
  ASSERT_TRUE(Eventually([&] { return rb.started == 1; }));
  EXPECT_EQ(store->current()->record.holder_identity, "b");
  EXPECT_EQ(store->current()->record.leader_transitions, 1);
}

// Yield on a pool: the term ends, the lease is released, and the elector campaigns again after
// recontend_after, taking the lease back when nobody else did.
TEST(ElectionPoolTest, AYieldedLeaderCampaignsAgain) {
  auto clock = std::make_shared<FakeClock>();
  auto pool = Pool(1);
  auto store = std::make_shared<MemoryLockStore>();
  testing::ElectionRecorder rec;
  ElectionConfig c;
  c.lock = std::make_shared<MemoryLock>(store, "a");
  c.clock = clock;
  c.recontend_after = 1s;
  rec.Attach(c.callbacks);
  auto handle = ElectionHandle::Start(std::move(c), pool);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  ASSERT_TRUE(Eventually([&] { return rec.started == 1; }));
  handle->elector().Yield();
  ASSERT_TRUE(Eventually([&] { return rec.stopped == 1; }));
  EXPECT_EQ(store->current()->record.holder_identity, "");
  // Not before recontend_after has passed on the clock.
  ASSERT_TRUE(clock->WaitForSleepers(1, 10s));
  EXPECT_EQ(rec.started.load(), 1);
  EXPECT_EQ(store->current()->record.holder_identity, "");
  ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock, 1500ms, 1, 500ms));
  ASSERT_TRUE(Eventually([&] { return rec.started == 2; }));
  EXPECT_GT(rec.Term(1).fencing_token, rec.Term(0).fencing_token);
}

// Handles in a vector: erasing one moves the others over it. Each assignment must stop the
// election it replaces (which releases its lease) before taking the next one's; the elections
// that moved keep leading.
TEST(ElectionPoolTest, AHandleAssignedOverStopsItsElectionFirst) {
  auto pool = Pool(1);
  std::vector<std::shared_ptr<MemoryLockStore>> stores;
  std::vector<ElectionHandle> handles;
  std::atomic<int> started{0}, stopped{0};
  for (int i = 0; i < 3; ++i) {
    stores.push_back(std::make_shared<MemoryLockStore>());
    ElectionConfig c;
    c.lock = std::make_shared<MemoryLock>(stores.back(), "a");
    c.release_on_cancel = true;
    c.callbacks.on_started_leading = [&](std::stop_token, const LeaderTerm&) { ++started; };
    c.callbacks.on_stopped_leading = [&] { ++stopped; };
    auto handle = ElectionHandle::Start(std::move(c), pool);
    ASSERT_TRUE(handle.ok()) << handle.status().ToString();
    handles.push_back(std::move(*handle));
  }
  ASSERT_TRUE(Eventually([&] { return started.load() == 3; }));
  handles.erase(handles.begin());
  // The first election has ended and released its lease; the other two moved and lead on.
  EXPECT_EQ(stopped.load(), 1);
  EXPECT_EQ(stores[0]->current()->record.holder_identity, "");
  ASSERT_EQ(handles.size(), 2u);
  EXPECT_TRUE(handles[0].elector().IsLeader());
  EXPECT_TRUE(handles[1].elector().IsLeader());
  EXPECT_EQ(stores[1]->current()->record.holder_identity, "a");
  EXPECT_EQ(stores[2]->current()->record.holder_identity, "a");
  handles.clear();
  EXPECT_EQ(stopped.load(), 3);
}

// One elector, one election at a time, run on a pool, then on a thread of its own (a null pool),
// with on_new_leader heard in both.
TEST(ElectionPoolTest, AnElectorRunsAgainOnAThreadAfterAPool) {
  auto store = std::make_shared<MemoryLockStore>();
  ElectionConfig c;
  c.lock = std::make_shared<MemoryLock>(store, "a");
  c.release_on_cancel = true;
  std::atomic<int> started{0}, heard{0};
  c.callbacks.on_started_leading = [&](std::stop_token, const LeaderTerm&) { ++started; };
  c.callbacks.on_stopped_leading = [] {};
  c.callbacks.on_new_leader = [&](const std::string&) { ++heard; };
  auto elector = Elector::Create(std::move(c));
  ASSERT_TRUE(elector.ok()) << elector.status().ToString();
  std::shared_ptr<Elector> shared = std::move(*elector);
  {
    auto pool = Pool(1);
    ElectionHandle on_pool(shared, pool);
    ASSERT_TRUE(Eventually([&] { return started == 1 && heard == 1; }));
  }
  EXPECT_EQ(store->current()->record.holder_identity, "");  // released
  ElectionHandle on_thread(shared, nullptr);
  ASSERT_TRUE(Eventually([&] { return started == 2 && heard == 2; }));
  EXPECT_TRUE(on_thread.elector().IsLeader());
}

// Coordinated mode on a pool: the controller (the test) assigns the lease, then prefers another
// holder. The term ends at once through the watch, the leader drains (the lease stays its own
// while its work runs) and releases only once the work has returned.
TEST(ElectionPoolTest, APreemptedCoordinatedLeaderDrainsThenReleases) {
  auto clock = std::make_shared<FakeClock>();
  auto pool = Pool(1);
  auto store = std::make_shared<MemoryLockStore>();
  testing::ElectionRecorder rec;
  std::mutex mu;
  std::condition_variable_any cv;
  bool may_return = false;
  ElectionConfig c;
  c.lock = std::make_shared<MemoryLock>(store, "a");
  c.clock = clock;
  c.coordinated = true;
  rec.Attach(c.callbacks);
  auto record_start = c.callbacks.on_started_leading;
  c.callbacks.on_started_leading = [&](std::stop_token stop, const LeaderTerm& term) {
    record_start(stop, term);
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return may_return; });  // work that outlives its stop token
  };
  auto handle = ElectionHandle::Start(std::move(c), pool);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  LeaderElectionRecord assigned;
  assigned.holder_identity = "a";
  assigned.lease_duration_seconds = 15;
  assigned.strategy = "OldestEmulationVersion";
  store->Put(assigned);
  ASSERT_TRUE(Eventually([&] { return rec.started == 1; }));
  LeaderElectionRecord preferred = store->current()->record;
  preferred.preferred_holder = "b";
  store->Put(preferred);
  ASSERT_TRUE(Eventually([&] { return rec.Token(0).stop_requested(); }));
  EXPECT_FALSE(handle->elector().IsLeader());
  EXPECT_EQ(store->current()->record.holder_identity, "a");  // draining: not released yet
  EXPECT_EQ(rec.stopped.load(), 0);
  {
    std::lock_guard lock(mu);
    may_return = true;
  }
  cv.notify_all();
  ASSERT_TRUE(Eventually([&] { return rec.stopped == 1; }));
  EXPECT_EQ(store->current()->record.holder_identity, "");  // released for the controller
}

// An elector that ran on a thread, then runs on a pool: on_new_leader calls still come one at a
// time and in order (the first run's notifier thread must not deliver beside the pool).
TEST(ElectionPoolTest, LeaderCallsStayOneAtATimeWhenAnElectorMovesToAPool) {
  auto store = std::make_shared<MemoryLockStore>();
  ElectionConfig c;
  c.lock = std::make_shared<MemoryLock>(store, "a");
  c.release_on_cancel = true;
  std::mutex mu;
  std::condition_variable_any cv;
  std::vector<std::string> heard;
  bool hold = false, overlapped = false;
  int in_call = 0;
  c.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
  c.callbacks.on_stopped_leading = [] {};
  c.callbacks.on_new_leader = [&](const std::string& leader) {
    std::unique_lock lock(mu);
    if (++in_call > 1) overlapped = true;
    heard.push_back(leader);
    cv.notify_all();
    cv.wait(lock, [&] { return !hold; });
    --in_call;
  };
  auto elector = Elector::Create(std::move(c));
  ASSERT_TRUE(elector.ok()) << elector.status().ToString();
  std::shared_ptr<Elector> shared = std::move(*elector);
  auto heard_count = [&] {
    std::lock_guard lock(mu);
    return heard.size();
  };
  {
    ElectionHandle on_thread(shared, nullptr);
    ASSERT_TRUE(Eventually([&] { return heard_count() == 1; }));
  }
  {
    std::lock_guard lock(mu);
    hold = true;  // the pool run's first call waits
  }
  ElectionHandle on_pool(shared, Pool(2));
  ASSERT_TRUE(Eventually([&] { return heard_count() == 2; }));
  LeaderElectionRecord other = store->current()->record;
  other.holder_identity = "b";
  store->Put(other);  // a second change while the first call still runs
  // Given a moment, the second call must not start beside the first.
  EXPECT_FALSE(Eventually([&] { return heard_count() == 3; }, std::chrono::milliseconds(500)));
  {
    std::lock_guard lock(mu);
    hold = false;
  }
  cv.notify_all();
  ASSERT_TRUE(Eventually([&] { return heard_count() == 3; }));
  std::lock_guard lock(mu);
  EXPECT_FALSE(overlapped);
  EXPECT_EQ(heard, (std::vector<std::string>{"a", "a", "b"}));
}

}  // namespace
}  // namespace tenure
