// FakeClock: a Clock that moves only when told, for deterministic tests of time-driven code.
// Sleepers wake when Advance/Set reaches their deadline. Thread-safe.
#pragma once

#include <condition_variable>
#include <list>
#include <mutex>

#include "tenure/clock.h"

namespace tenure {

class FakeClock final : public Clock {
 public:
  FakeClock();
  TimePoint now() const override;
  WallTime wall_now() const override;
  bool SleepUntil(TimePoint deadline, std::stop_token stop) const override;

  void Advance(Duration d);
  // Number of threads sleeping towards a deadline still in the future (a thread whose deadline
  // has been reached, or whose stop was requested, counts as awake even before it runs): lets a
  // test wait until the code under test has gone back to sleep before it advances time again.
  int sleepers() const;
  // Blocks (really) until at least `n` threads sleep, or `real_timeout` passes; false on timeout.
  bool WaitForSleepers(int n, std::chrono::milliseconds real_timeout) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable_any changed_;
  TimePoint now_;
  WallTime wall_;
  struct Sleeper {
    TimePoint deadline;
    std::stop_token stop;
  };
  mutable std::list<Sleeper> sleepers_;  // the threads inside SleepUntil
  int SleepersLocked() const;
};

}  // namespace tenure
