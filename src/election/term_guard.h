// TermGuard: the stop token of one leadership term. It fires when the deadline passes (checked
// by a timer thread of its own, so a hung request cannot delay it), when Fire() is called, or
// when the election itself is stopped. The deadline can only move later (Extend).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <thread>

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

 private:
  std::shared_ptr<Clock> clock_;
  std::stop_source source_;
  std::atomic<Clock::TimePoint::rep> deadline_;
  std::optional<std::stop_callback<std::function<void()>>> forward_;
  std::jthread timer_;
};

}  // namespace tenure
