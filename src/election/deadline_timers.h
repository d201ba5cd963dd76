// DeadlineTimers: one thread per Clock that fires callbacks at deadlines on that clock, shared
// by every TermGuard of the process (a thread per elector would cost memory with many
// electors). Callbacks must be quick and must not block: they only request stops.
// Add, Move and Cancel cost O(log n) in the number of timers, and the thread wakes only when the
// earliest deadline comes sooner: a renewal moves its term's deadline later, which wakes nobody.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "tenure/clock.h"

namespace tenure {

class DeadlineTimers {
 public:
  // The instance for `clock`, created on first use and kept while anyone holds it.
  static std::shared_ptr<DeadlineTimers> For(const std::shared_ptr<Clock>& clock);
  explicit DeadlineTimers(std::shared_ptr<Clock> clock);
  ~DeadlineTimers();

  uint64_t Add(Clock::TimePoint deadline, std::function<void()> fire);
  // Moves a timer's deadline (no effect once it fired or was cancelled).
  void Move(uint64_t id, Clock::TimePoint deadline);
  void Cancel(uint64_t id);

 private:
  struct Timer {
    Clock::TimePoint deadline;
    std::function<void()> fire;
  };
  void Loop(std::stop_token stop);
  void WakeLocked();
  // Wakes the thread when `deadline` is sooner than every deadline it may be sleeping for.
  void WakeIfSoonerLocked(Clock::TimePoint deadline);

  std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  std::condition_variable_any idle_;  // real wait while there is no timer at all
  std::map<uint64_t, Timer> timers_;
  std::set<std::pair<Clock::TimePoint, uint64_t>> by_deadline_;  // the same timers, soonest first
  uint64_t next_id_ = 1;
  std::stop_source wake_;  // interrupts the clock sleep when the earliest deadline changes
  std::jthread thread_;
};

}  // namespace tenure
