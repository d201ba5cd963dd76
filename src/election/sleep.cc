// SleepAwaiter: a wait on the injected Clock that blocks a thread, or suspends a coroutine until
// a DeadlineTimers timer or a stop request posts it back to its executor.
#include "election/sleep.h"

#include <atomic>
#include <functional>
#include <optional>

namespace tenure::election {

// What the timer and the stop callback share with the suspended coroutine. Whichever of them
// fires first resumes it, but never before await_suspend has finished arming both: a callback
// that fires during arming only marks the wait, and await_suspend then resumes at once.
struct SleepAwaiter::Wait {
  static constexpr int kFired = 1;
  static constexpr int kArmed = 2;

  Wait(Executor* executor, std::coroutine_handle<> waiting)
      : executor(executor), waiting(waiting) {}

  void Fire() {
    int before = state.fetch_or(kFired);
    if ((before & kArmed) != 0 && (before & kFired) == 0)
      executor->Post([step = waiting] { step.resume(); });
  }
  // True when the coroutine stays suspended (a callback resumes it later).
  bool Arm() { return (state.fetch_or(kArmed) & kFired) == 0; }

  Executor* const executor;
  const std::coroutine_handle<> waiting;
  std::atomic<int> state{0};
  std::optional<std::stop_callback<std::function<void()>>> on_stop;
};

SleepAwaiter::SleepAwaiter(Executor* executor, DeadlineTimers* timers, const Clock& clock,
                           Clock::TimePoint deadline, std::stop_token stop)
    : executor_(executor),
      timers_(timers),
      clock_(clock),
      deadline_(deadline),
      stop_(std::move(stop)) {}

bool SleepAwaiter::await_ready() {
  if (executor_ == nullptr) {
    reached_ = clock_.SleepUntil(deadline_, stop_);
    return true;
  }
  if (stop_.stop_requested()) return true;
  if (clock_.now() >= deadline_) {
    reached_ = true;
    return true;
  }
  return false;
}

bool SleepAwaiter::await_suspend(std::coroutine_handle<> waiting) {
  wait_ = std::make_shared<Wait>(executor_, waiting);
  // The timer may fire after the coroutine went on (Cancel races with it): it holds the wait.
  // A wait may end a few ms late: it wakes with the others due then (DeadlineTimers).
  timer_ = timers_->AddCoalesced(deadline_, [wait = wait_] { wait->Fire(); });
  // The stop callback is destroyed in await_resume, before the wait can be.
  wait_->on_stop.emplace(stop_, std::function<void()>([wait = wait_.get()] { wait->Fire(); }));
  return wait_->Arm();
}

bool SleepAwaiter::await_resume() {
  if (wait_ == nullptr) return reached_;
  wait_->on_stop.reset();  // waits for a callback running on another thread
  timers_->Cancel(timer_);
  return !stop_.stop_requested();
}

}  // namespace tenure::election
