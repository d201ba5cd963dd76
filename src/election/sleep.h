// SleepAwaiter: `co_await` it to wait on an injected Clock until a deadline or until a stop is
// requested; it gives true when the deadline was reached, false when stopped (as
// Clock::SleepUntil).
// Without an executor it blocks the calling thread in Clock::SleepUntil and never suspends, so a
// coroutine made only of such waits runs to its end on the thread that started it. With one it
// suspends and holds no thread: the clock's DeadlineTimers thread or the stop request posts the
// coroutine back to the executor, exactly once whichever comes first.
#pragma once

#include <coroutine>
#include <cstdint>
#include <memory>
#include <stop_token>

#include "election/deadline_timers.h"
#include "election/executor.h"
#include "tenure/clock.h"

namespace tenure::election {

class SleepAwaiter {
 public:
  // `executor` and `timers` (the clock's, DeadlineTimers::For) both set, or both null to block.
  SleepAwaiter(Executor* executor, DeadlineTimers* timers, const Clock& clock,
               Clock::TimePoint deadline, std::stop_token stop);
  SleepAwaiter(const SleepAwaiter&) = delete;
  SleepAwaiter& operator=(const SleepAwaiter&) = delete;

  bool await_ready();
  bool await_suspend(std::coroutine_handle<> waiting);
  bool await_resume();

 private:
  struct Wait;
  Executor* executor_;
  DeadlineTimers* timers_;
  const Clock& clock_;
  Clock::TimePoint deadline_;
  std::stop_token stop_;
  bool reached_ = false;
  std::shared_ptr<Wait> wait_;
  uint64_t timer_ = 0;
};

}  // namespace tenure::election
