// Tests of FencingTokenChecker (superseded and concurrent tokens) and LeaderElectionHealthCheck.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tenure/fake_clock.h"
#include "tenure/fencing.h"
#include "tenure/health.h"
#include "tenure/memory_lock.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

TEST(FencingTokenCheckerTest, RejectsTokensOfSupersededTerms) {
  FencingTokenChecker checker;
  EXPECT_TRUE(checker.Accept(5));
  EXPECT_TRUE(checker.Accept(5));  // the same term writes again
  EXPECT_TRUE(checker.Accept(9));
  EXPECT_FALSE(checker.Accept(5));  // the deposed leader
  EXPECT_EQ(checker.highest(), 9u);
}

TEST(FencingTokenCheckerTest, ConcurrentWritersNeverLowerTheHighestToken) {
  FencingTokenChecker checker;
  std::vector<std::thread> threads;
  for (uint64_t t = 1; t <= 8; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < 1000; ++i) checker.Accept(t * 1000 + i);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(checker.highest(), 8999u);
  EXPECT_FALSE(checker.Accept(8998));
}

TEST(LeaderElectionHealthCheckTest, HealthyWithoutElectorOrWhenNotLeading) {
  LeaderElectionHealthCheck check;
  EXPECT_EQ(check.name(), "leaderElection");
  EXPECT_TRUE(check.Check().ok());
  ElectionConfig config;
  config.lock = std::make_shared<MemoryLock>(std::make_shared<MemoryLockStore>(), "a");
  config.clock = std::make_shared<FakeClock>();
  config.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
  config.callbacks.on_stopped_leading = [] {};
  auto elector = Elector::Create(std::move(config));
  ASSERT_TRUE(elector.ok());
  check.Attach(std::shared_ptr<const Elector>(std::move(*elector)));
  EXPECT_TRUE(check.Check().ok());  // not leading
}

}  // namespace
}  // namespace tenure
