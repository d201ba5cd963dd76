// Tests of WorkQueue with a FakeClock: one entry per key, due order, Done, stop.
#include "coordination/work_queue.h"

#include <gtest/gtest.h>

#include <future>

#include "tenure/fake_clock.h"

namespace tenure::coordination {
namespace {

using namespace std::chrono_literals;

class WorkQueueTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  WorkQueue queue_{clock_};
  std::stop_source stop_;

  std::future<std::optional<std::string>> GetAsync() {
    return std::async(std::launch::async, [this] { return queue_.Get(stop_.get_token()); });
  }

  // Once `got`'s worker sleeps, moves the clock `step` and checks it sleeps again: nothing due.
  void ExpectNothingDueAfter(std::future<std::optional<std::string>>& got, Clock::Duration step) {
    ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
    clock_->Advance(step);
    ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
    EXPECT_EQ(got.wait_for(0s), std::future_status::timeout);
  }
};

TEST_F(WorkQueueTest, AKeyIsQueuedOnceWithItsEarliestDueTime) {
  queue_.AddAfter("a", 10s);
  queue_.AddAfter("a", 3s);
  queue_.AddAfter("a", 20s);
  EXPECT_EQ(queue_.size(), 1u);
  auto got = GetAsync();
  ASSERT_NO_FATAL_FAILURE(ExpectNothingDueAfter(got, 2s));
  clock_->Advance(1s);
  EXPECT_EQ(got.get(), "a");
  EXPECT_EQ(queue_.size(), 0u);
}

TEST_F(WorkQueueTest, AnAddWakesASleepingWorker) {
  auto got = GetAsync();
  ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
  queue_.Add("now");
  EXPECT_EQ(got.get(), "now");
}

TEST_F(WorkQueueTest, DueKeysComeInDueOrder) {
  queue_.AddAfter("late", 2s);
  queue_.AddAfter("early", 1s);
  clock_->Advance(5s);
  EXPECT_EQ(queue_.Get(stop_.get_token()), "early");
  EXPECT_EQ(queue_.Get(stop_.get_token()), "late");
}

TEST_F(WorkQueueTest, AddAtCountsFromTheGivenTimeNotFromNow) {
  // A decision taken at `decided` asks for a requeue 5 s later; the clock has moved on 3 s
  // before the key is added: it is due 2 s from now, and a time already past is due at once.
  Clock::TimePoint decided = clock_->now();
  clock_->Advance(3s);
  queue_.AddAt("requeue", decided + 5s);
  queue_.AddAt("overdue", decided + 1s);
  EXPECT_EQ(queue_.Get(stop_.get_token()), "overdue");
  auto got = GetAsync();
  ASSERT_NO_FATAL_FAILURE(ExpectNothingDueAfter(got, 1s));
  clock_->Advance(1s);
  EXPECT_EQ(got.get(), "requeue");
}

TEST_F(WorkQueueTest, AKeyBeingProcessedIsHandedOutAgainOnlyAfterDone) {
  queue_.Add("a");
  ASSERT_EQ(queue_.Get(stop_.get_token()), "a");
  queue_.Add("a");  // changed while being processed
  auto got = GetAsync();
  ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
  EXPECT_EQ(got.wait_for(0s), std::future_status::timeout);
  queue_.Done("a");
  EXPECT_EQ(got.get(), "a");
}

TEST_F(WorkQueueTest, StopEndsAWaitingGet) {
  auto got = GetAsync();
  ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
  stop_.request_stop();
  EXPECT_EQ(got.get(), std::nullopt);
}

}  // namespace
}  // namespace tenure::coordination
