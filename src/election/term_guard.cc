// TermGuard: the stop token of one leadership term, fired at its deadline by DeadlineTimers.
#include "election/term_guard.h"

namespace tenure {

TermGuard::TermGuard(std::shared_ptr<Clock> clock, Clock::TimePoint deadline,
                     std::stop_token election)
    : timers_(DeadlineTimers::For(clock)), deadline_(deadline) {
  // The timer holds a copy of the stop source, so firing after the guard is gone is harmless.
  timer_ = timers_->Add(deadline, [source = source_] { std::stop_source(source).request_stop(); });
  forward_.emplace(election, std::function<void()>([this] { source_.request_stop(); }));
}

TermGuard::~TermGuard() {
  forward_.reset();
  timers_->Cancel(timer_);
}

void TermGuard::Extend(Clock::TimePoint deadline) {
  std::lock_guard lock(mu_);
  if (deadline <= deadline_) return;
  deadline_ = deadline;
  timers_->Move(timer_, deadline);
}

}  // namespace tenure
