// RevisionBarrier: a reader never takes an answer to a request sent before it arrived, and the
// readers waiting together share one request.
#include "store/revision_barrier.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

namespace tenure::store {
namespace {

using Clock = std::chrono::steady_clock;

// A backend whose revision requests can be held until the test lets them go. Each request reads
// the revision when it is sent, as etcd's answer reflects the writes applied by then.
class HeldBackend {
 public:
  Result<int64_t> Fetch() {
    int64_t revision = revision_.load();
    std::unique_lock lock(mu_);
    ++sent_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return released_ >= sent_; });
    return revision;
  }
  void Release() {
    std::lock_guard lock(mu_);
    ++released_;
    cv_.notify_all();
  }
  void ReleaseAll() {
    std::lock_guard lock(mu_);
    released_ = 1 << 30;
    cv_.notify_all();
  }
  bool WaitSent(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return sent_ >= n; });
  }
  std::atomic<int64_t> revision_{1};

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int sent_ = 0;
  int released_ = 0;
};

bool WaitUntil(const std::function<bool()>& done) {
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(RevisionBarrierTest, AReaderDoesNotTakeTheAnswerOfARequestSentBeforeItArrived) {
  HeldBackend backend;
  RevisionBarrier barrier([&](Deadline) { return backend.Fetch(); });
  // The first reader's request is sent while the backend is at revision 1, and held.
  auto first = std::async(std::launch::async, [&] { return barrier.Current(); });
  ASSERT_TRUE(backend.WaitSent(1));
  // A write is acknowledged, then a second reader arrives: revision 1 would be stale for it.
  backend.revision_ = 5;
  auto second = std::async(std::launch::async, [&] { return barrier.Current(); });
  ASSERT_TRUE(WaitUntil([&] { return barrier.waiting() == 1; }));
  backend.ReleaseAll();
  ASSERT_TRUE(first.get().ok());
  auto answer = second.get();
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(*answer, 5);
  EXPECT_EQ(barrier.requests(), 2u);
}

TEST(RevisionBarrierTest, ReadersWaitingTogetherShareOneRequest) {
  HeldBackend backend;
  RevisionBarrier barrier([&](Deadline) { return backend.Fetch(); });
  auto first = std::async(std::launch::async, [&] { return barrier.Current(); });
  ASSERT_TRUE(backend.WaitSent(1));
  backend.revision_ = 7;
  constexpr int kReaders = 8;
  std::vector<std::future<Result<int64_t>>> readers;
  for (int i = 0; i < kReaders; ++i) {
    readers.push_back(std::async(std::launch::async, [&] { return barrier.Current(); }));
  }
  ASSERT_TRUE(WaitUntil([&] { return barrier.waiting() == kReaders; }));
  backend.ReleaseAll();
  ASSERT_TRUE(first.get().ok());
  for (auto& reader : readers) {
    auto answer = reader.get();
    ASSERT_TRUE(answer.ok());
    EXPECT_EQ(*answer, 7);
  }
  EXPECT_EQ(barrier.requests(), 2u);  // the first reader's, and one for the other eight
}

TEST(RevisionBarrierTest, AWaitingReaderGivesUpAtItsDeadline) {
  HeldBackend backend;
  RevisionBarrier barrier([&](Deadline) { return backend.Fetch(); });
  auto first = std::async(std::launch::async, [&] { return barrier.Current(); });
  ASSERT_TRUE(backend.WaitSent(1));
  auto late = barrier.Current(Clock::now() + std::chrono::milliseconds(20));
  EXPECT_EQ(late.status().reason(), Reason::kTimeout) << late.status().ToString();
  backend.ReleaseAll();
  EXPECT_TRUE(first.get().ok());
}

TEST(RevisionBarrierTest, AnErrorIsTheAnswerOfTheReadersThatShareIt) {
  RevisionBarrier barrier([](Deadline) -> Result<int64_t> {
    return Status::Unavailable("no etcd endpoint reachable");
  });
  EXPECT_EQ(barrier.Current().status().reason(), Reason::kServiceUnavailable);
  EXPECT_EQ(barrier.requests(), 1u);
}

}  // namespace
}  // namespace tenure::store
