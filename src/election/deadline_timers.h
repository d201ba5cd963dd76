// DeadlineTimers: one thread per Clock that fires callbacks at deadlines on that clock, shared
// by every TermGuard of the process (a thread per elector would cost memory with many
// electors). Callbacks must be quick and must not block: they only request stops.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

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

  std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  std::condition_variable_any idle_;  // real wait while there is no timer at all
  std::map<uint64_t, Timer> timers_;
  uint64_t next_id_ = 1;
  std::stop_source wake_;  // interrupts the clock sleep when the earliest deadline changes
  std::jthread thread_;
};

}  // namespace tenure
