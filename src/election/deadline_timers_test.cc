// DeadlineTimers on a FakeClock: timers fire at their deadlines in order, a moved deadline is
// the one that counts (sooner wakes the thread, later defers), a cancelled timer never fires.
#include "election/deadline_timers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "tenure/fake_clock.h"
#include "tenure/testing/waits.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;
using testing::Eventually;

class DeadlineTimersTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  DeadlineTimers timers_{clock_};
  std::mutex mu_;
  std::vector<int> fired_;

  std::function<void()> Record(int n) {
    return [this, n] {
      std::lock_guard lock(mu_);
      fired_.push_back(n);
    };
  }
  std::vector<int> Fired() {
    std::lock_guard lock(mu_);
    return fired_;
  }
  // Time moves only while the timer thread sleeps, so it never misses a step.
  void Advance(Clock::Duration d) {
    ASSERT_TRUE(clock_->WaitForSleepers(1, 5s));
    clock_->Advance(d);
  }
};

TEST_F(DeadlineTimersTest, FireAtTheirDeadlinesInOrder) {
  auto start = clock_->now();
  timers_.Add(start + 3s, Record(3));
  timers_.Add(start + 1s, Record(1));
  timers_.Add(start + 2s, Record(2));
  Advance(1500ms);
  EXPECT_TRUE(Eventually([&] { return Fired().size() == 1; }));
  Advance(2s);
  EXPECT_TRUE(Eventually([&] { return Fired().size() == 3; }));
  EXPECT_EQ(Fired(), (std::vector<int>{1, 2, 3}));
}

TEST_F(DeadlineTimersTest, AMovedDeadlineIsTheOneThatCounts) {
  auto start = clock_->now();
  uint64_t later = timers_.Add(start + 2s, Record(1));
  uint64_t sooner = timers_.Add(start + 10s, Record(2));
  timers_.Move(later, start + 5s);   // as a renewal does: the thread sleeps on
  timers_.Move(sooner, start + 1s);  // sooner than the thread sleeps for: it wakes
  Advance(1s);
  EXPECT_TRUE(Eventually([&] { return Fired() == std::vector<int>{2}; }));
  Advance(3s);  // 4 s: past the first deadline the timer had, not past its moved one
  ASSERT_TRUE(clock_->WaitForSleepers(1, 5s));
  EXPECT_EQ(Fired(), std::vector<int>{2});
  Advance(1s);
  EXPECT_TRUE(Eventually([&] { return Fired() == (std::vector<int>{2, 1}); }));
  timers_.Move(later, start + 20s);  // fired already: no effect
  EXPECT_EQ(Fired(), (std::vector<int>{2, 1}));
}

TEST_F(DeadlineTimersTest, ACancelledTimerNeverFires) {
  auto start = clock_->now();
  uint64_t cancelled = timers_.Add(start + 1s, Record(1));
  timers_.Add(start + 2s, Record(2));
  timers_.Cancel(cancelled);
  Advance(1s);
  ASSERT_TRUE(clock_->WaitForSleepers(1, 5s));  // woke for the cancelled deadline, slept again
  EXPECT_TRUE(Fired().empty());
  Advance(1s);
  EXPECT_TRUE(Eventually([&] { return Fired() == std::vector<int>{2}; }));
}

TEST_F(DeadlineTimersTest, TimersWithTheSameDeadlineAllFire) {
  auto start = clock_->now();
  for (int i = 0; i < 100; ++i) timers_.Add(start + 1s, Record(i));
  Advance(1s);
  EXPECT_TRUE(Eventually([&] { return Fired().size() == 100; }));
}

// On a fake clock nothing is coalesced: a test that advances to a deadline finds its timer fired.
TEST_F(DeadlineTimersTest, OnAFakeClockACoalescedTimerFiresAtItsDeadline) {
  EXPECT_EQ(timers_.coalescing(), Clock::Duration::zero());
  auto start = clock_->now();
  timers_.AddCoalesced(start + 2s, Record(2));
  timers_.AddCoalesced(start + 1s, Record(1));
  timers_.Add(start + 3s, Record(3));
  Advance(1s);
  EXPECT_TRUE(Eventually([&] { return Fired() == std::vector<int>{1}; }));
  Advance(1s);
  EXPECT_TRUE(Eventually([&] { return Fired() == (std::vector<int>{1, 2}); }));
  Advance(1s);
  EXPECT_TRUE(Eventually([&] { return Fired() == (std::vector<int>{1, 2, 3}); }));
}

// On the real clock, coalesced timers due within kCoalescing of each other fire in one wake of
// the thread (an elector's sleeps: thousands a second in a process with thousands of electors),
// none before its deadline; a wait "forever" does not fire.
TEST(DeadlineTimersRealClockTest, CoalescedTimersDueTogetherFireInOneWake) {
  DeadlineTimers timers(Clock::Real());
  ASSERT_EQ(timers.coalescing(), DeadlineTimers::kCoalescing);
  std::mutex mu;
  std::vector<std::pair<int, Clock::TimePoint>> fired;
  const auto record = [&](int n) {
    return [&, n] {
      std::lock_guard lock(mu);
      fired.emplace_back(n, Clock::Real()->now());
    };
  };
  timers.AddCoalesced(Clock::TimePoint::max(), record(0));
  const Clock::TimePoint first = Clock::Real()->now() + 200ms;
  const Clock::TimePoint second = first + DeadlineTimers::kCoalescing / 2;
  timers.AddCoalesced(second, record(2));
  timers.AddCoalesced(first, record(1));
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return fired.size() == 2;
  }));
  std::lock_guard lock(mu);
  EXPECT_EQ(fired[0].first, 1);
  EXPECT_EQ(fired[1].first, 2);
  EXPECT_GE(fired[0].second, second);  // waited for the second: one wake for both
  EXPECT_GE(fired[1].second, second);
  EXPECT_EQ(fired.size(), 2u);  // not the wait "forever"
}

}  // namespace
}  // namespace tenure
