// RevisionWaiter: kube-apiserver's watch cache waits up to 3 s for a resourceVersion it has not
// reached before it answers 504 (a list NotOlderThan a future version, a watch-list from one).
// This waits the same way without holding a request thread: one thread of its own checks the
// store's revision while requests wait, every 20 ms of the injected clock, and tells each
// waiter whether its revision came before its deadline. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "store/store.h"
#include "tenure/clock.h"

namespace tenure::server {

class RevisionWaiter {
 public:
  // How long kube's watch cache waits (blockTimeout).
  static constexpr std::chrono::seconds kWait{3};

  RevisionWaiter(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock);
  ~RevisionWaiter();
  RevisionWaiter(const RevisionWaiter&) = delete;
  RevisionWaiter& operator=(const RevisionWaiter&) = delete;

  // Calls `done(true)` once the store has reached `revision`, or `done(false)` at `deadline`,
  // on the waiter's thread (a request continues by posting to its own). Dropped at destruction.
  void Wait(int64_t revision, Clock::TimePoint deadline, std::function<void(bool reached)> done);

 private:
  struct Waiter {
    int64_t revision;
    Clock::TimePoint deadline;
    std::function<void(bool)> done;
  };
  void Run(std::stop_token stop);

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  std::condition_variable_any waiting_;
  std::vector<Waiter> waiters_;
  bool stopped_ = false;  // destruction began (guarded by mu_)
  std::jthread thread_;   // started by the first Wait (guarded by mu_)
};

}  // namespace tenure::server
