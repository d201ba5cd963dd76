#include "election/term_guard.h"

#include <functional>

namespace tenure {

TermGuard::TermGuard(std::shared_ptr<Clock> clock, Clock::TimePoint deadline,
                     std::stop_token election)
    : clock_(std::move(clock)), deadline_(deadline.time_since_epoch().count()) {
  forward_.emplace(election, std::function<void()>([this] { source_.request_stop(); }));
  timer_ = std::jthread([this](std::stop_token stop) {
    // Wakes at the deadline; an extension found there means: sleep again.
    while (!source_.stop_requested()) {
      Clock::TimePoint d{Clock::Duration(deadline_.load())};
      if (!clock_->SleepUntil(d, stop)) return;
      if (clock_->now() >= Clock::TimePoint{Clock::Duration(deadline_.load())}) {
        source_.request_stop();
        return;
      }
    }
  });
}

TermGuard::~TermGuard() {
  timer_.request_stop();
  if (timer_.joinable()) timer_.join();
  forward_.reset();
}

void TermGuard::Extend(Clock::TimePoint deadline) {
  auto wanted = deadline.time_since_epoch().count();
  auto current = deadline_.load();
  while (wanted > current && !deadline_.compare_exchange_weak(current, wanted)) {
  }
}

}  // namespace tenure
