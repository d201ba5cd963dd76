// Tests of MemoryLock's own promises beyond the Lock conformance suite: watch events in version
// order under concurrent writers, and hung calls that end at their timeout.
#include "tenure/memory_lock.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tenure/testing/waits.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

TEST(MemoryLockTest, ConcurrentWritesAreWatchedInVersionOrder) {
  auto store = std::make_shared<MemoryLockStore>();
  MemoryLock lock(store, "watcher");
  std::mutex mu;
  std::vector<int64_t> versions;
  auto watch = lock.Watch([&](const ObservedRecord& r) {
    std::lock_guard guard(mu);
    versions.push_back(r.version);
  });
  constexpr int kWriters = 4, kWrites = 2000;
  {
    std::vector<std::jthread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&store, w] {
        LeaderElectionRecord record;
        record.holder_identity = "writer-" + std::to_string(w);
        for (int i = 0; i < kWrites; ++i) {
          record.leader_transitions = i;
          store->Put(record);
        }
      });
    }
  }
  std::lock_guard guard(mu);
  ASSERT_EQ(versions.size(), static_cast<size_t>(kWriters * kWrites));
  for (size_t i = 0; i < versions.size(); ++i) {
    ASSERT_EQ(versions[i], static_cast<int64_t>(i + 1)) << "event " << i << " out of order";
  }
}

TEST(MemoryLockTest, AHungCallEndsAtItsTimeoutAndAReleasedOneFailsAtOnce) {
  auto store = std::make_shared<MemoryLockStore>();
  MemoryLock lock(store, "a");
  store->SetHung(true);
  auto start = std::chrono::steady_clock::now();
  auto got = lock.Get(200ms);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().reason(), Reason::kTimeout) << got.status().ToString();

  std::jthread caller([&] {
    auto r = lock.Get(std::chrono::nanoseconds::max());  // no overflow: waits until released
    EXPECT_EQ(r.status().reason(), Reason::kServiceUnavailable) << r.status().ToString();
  });
  EXPECT_TRUE(testing::Eventually([&] { return store->hung_calls() == 1; }));
  store->SetHung(false);
}

}  // namespace
}  // namespace tenure
