// DeadlineTimers: one thread per Clock that fires callbacks at deadlines on that clock, shared
// by every TermGuard of the process (a thread per elector would cost memory with many
// electors). Callbacks must be quick and must not block: they only request stops.
// Add, Move and Cancel cost O(log n) in the number of timers, and the thread wakes only when the
// earliest deadline comes sooner: a renewal moves its term's deadline later, which wakes nobody.
// Timers that may fire a little late (AddCoalesced: an elector's sleeps, not a term's stop) fire
// together: on the real clock the thread wakes once for all those due within a few ms.
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

  // Fires at `deadline`, as soon as the thread can.
  uint64_t Add(Clock::TimePoint deadline, std::function<void()> fire);
  // Fires at `deadline` or up to coalescing() after it, with the other timers due by then.
  uint64_t AddCoalesced(Clock::TimePoint deadline, std::function<void()> fire);
  // How late an AddCoalesced timer may fire: kCoalescing on Clock::Real(), 0 on any other clock
  // (a test's fake clock advances to a deadline and expects what is due then).
  Clock::Duration coalescing() const { return coalescing_; }
  static constexpr Clock::Duration kCoalescing = std::chrono::milliseconds(4);
  // Moves a timer's deadline (no effect once it fired or was cancelled).
  void Move(uint64_t id, Clock::TimePoint deadline);
  void Cancel(uint64_t id);

 private:
  using Queue = std::set<std::pair<Clock::TimePoint, uint64_t>>;  // deadline, id; soonest first
  struct Timer {
    Clock::TimePoint deadline;
    std::function<void()> fire;
    bool coalesced = false;
  };
  uint64_t AddTo(Clock::TimePoint deadline, std::function<void()> fire, bool coalesced);
  Queue& QueueOf(const Timer& timer) { return timer.coalesced ? coalesced_ : by_deadline_; }
  // The latest a timer of `deadline` may fire.
  Clock::TimePoint LatestFor(Clock::TimePoint deadline, bool coalesced) const;
  // When the thread must wake next: at the soonest exact deadline, or coalescing_ after the
  // soonest coalesced one (max() when there is no timer). Under mu_.
  Clock::TimePoint WakeAtLocked() const;
  void Loop(std::stop_token stop);
  void WakeLocked();
  // Wakes the thread when it must wake at `at`, sooner than it may be sleeping for.
  void WakeIfSoonerLocked(Clock::TimePoint at);

  std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  std::condition_variable_any idle_;  // real wait while there is no timer at all
  const Clock::Duration coalescing_;
  std::map<uint64_t, Timer> timers_;
  Queue by_deadline_;  // the exact timers
  Queue coalesced_;    // the others
  uint64_t next_id_ = 1;
  std::stop_source wake_;  // interrupts the clock sleep when the earliest deadline changes
  std::jthread thread_;
};

}  // namespace tenure
