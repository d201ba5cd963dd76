// TermGuard: the stop token of one leadership term. It fires when the deadline passes (checked
// by the process-wide DeadlineTimers thread, so a hung request cannot delay it), when Fire() is
// called, or when the election itself is stopped. The deadline can only move later (Extend).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>

#include "election/deadline_timers.h"
#include "tenure/clock.h"

namespace tenure {

class TermGuard {
 public:
  TermGuard(std::shared_ptr<Clock> clock, Clock::TimePoint deadline, std::stop_token election);
  ~TermGuard();
  TermGuard(const TermGuard&) = delete;
  TermGuard& operator=(const TermGuard&) = delete;

  std::stop_token token() const { return source_.get_token(); }
  bool fired() const { return source_.stop_requested(); }
  void Extend(Clock::TimePoint deadline);
  void Fire() { source_.request_stop(); }
  // A handle whose request_stop() fires this guard; it stays valid (and harmless) after the
  // guard is gone, so a caller can fire without holding the lock that keeps the guard alive.
  std::stop_source source() const { return source_; }

 private:
  std::stop_source source_;
  std::shared_ptr<DeadlineTimers> timers_;
  uint64_t timer_ = 0;
  std::mutex mu_;
  Clock::TimePoint deadline_;
  std::optional<std::stop_callback<std::function<void()>>> forward_;
};

}  // namespace tenure
