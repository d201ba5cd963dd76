// The real clock's SleepUntil: it waits until the deadline, and a stop ends it at once, also
// before it started, also with a deadline at the end of time.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tenure/clock.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

TEST(RealClockTest, SleepsUntilTheDeadline) {
  auto clock = Clock::Real();
  auto deadline = clock->now() + 30ms;
  EXPECT_TRUE(clock->SleepUntil(deadline, {}));
  EXPECT_GE(clock->now(), deadline);
  EXPECT_TRUE(clock->SleepUntil(clock->now() - 1s, {}));  // a deadline passed already
}

TEST(RealClockTest, AStopEndsTheSleepWhetherItCameBeforeOrDuringIt) {
  auto clock = Clock::Real();
  std::stop_source already;
  already.request_stop();
  EXPECT_FALSE(clock->SleepUntil(Clock::TimePoint::max(), already.get_token()));

  std::stop_source source;
  std::atomic<bool> returned{false}, result{true};
  std::thread sleeper([&] {
    result = clock->SleepUntil(Clock::TimePoint::max(), source.get_token());
    returned = true;
  });
  source.request_stop();
  sleeper.join();  // a sleep the stop did not end would hang the test here
  EXPECT_TRUE(returned);
  EXPECT_FALSE(result);
}

TEST(RealClockTest, ManySleepersAreEachWokenByTheirOwnStop) {
  auto clock = Clock::Real();
  constexpr int kSleepers = 200;
  std::vector<std::stop_source> sources(kSleepers);
  std::atomic<int> stopped{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kSleepers; ++i) {
    threads.emplace_back([&, i] {
      if (!clock->SleepUntil(clock->now() + 1h, sources[static_cast<size_t>(i)].get_token())) {
        ++stopped;
      }
    });
  }
  for (auto& s : sources) s.request_stop();
  for (auto& t : threads) t.join();
  EXPECT_EQ(stopped.load(), kSleepers);
}

}  // namespace
}  // namespace tenure
