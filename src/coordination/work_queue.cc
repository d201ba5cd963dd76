// WorkQueue: the controller's delaying work queue, one worker per key, due times on a Clock.
#include "coordination/work_queue.h"

namespace tenure::coordination {

WorkQueue::WorkQueue(std::shared_ptr<Clock> clock) : clock_(std::move(clock)) {}

void WorkQueue::WakeLocked() {
  if (wake_) wake_->request_stop();
  wake_.reset();
}

void WorkQueue::AddAfter(const std::string& key, Clock::Duration delay) {
  AddAt(key, clock_->now() + std::max(delay, Clock::Duration::zero()));
}

void WorkQueue::AddAt(const std::string& key, Clock::TimePoint due) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = queued_.emplace(key, due);
  if (!inserted) {
    if (due >= it->second) return;
    it->second = due;
  }
  WakeLocked();
}

std::optional<std::string> WorkQueue::Get(std::stop_token stop) {
  // With nothing queued a worker still wakes now and then: a FakeClock sleeper needs a deadline.
  constexpr Clock::Duration kIdle = std::chrono::hours(1);
  while (!stop.stop_requested()) {
    std::stop_source wake;
    Clock::TimePoint deadline;
    {
      std::lock_guard lock(mu_);
      Clock::TimePoint now = clock_->now();
      deadline = now + kIdle;
      auto best = queued_.end();
      for (auto it = queued_.begin(); it != queued_.end(); ++it) {
        if (processing_.count(it->first)) continue;
        if (best == queued_.end() || it->second < best->second) best = it;
      }
      if (best != queued_.end()) {
        if (best->second <= now) {
          std::string key = best->first;
          queued_.erase(best);
          processing_.insert(key);
          return key;
        }
        deadline = best->second;
      }
      wake_ = wake;
    }
    std::stop_callback forward(stop, [&wake] { wake.request_stop(); });
    clock_->SleepUntil(deadline, wake.get_token());
  }
  return std::nullopt;
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard lock(mu_);
  processing_.erase(key);
  if (queued_.count(key)) WakeLocked();
}

size_t WorkQueue::size() const {
  std::lock_guard lock(mu_);
  return queued_.size();
}

}  // namespace tenure::coordination
