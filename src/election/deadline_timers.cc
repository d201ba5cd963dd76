// DeadlineTimers: one thread per Clock firing callbacks at deadlines, shared by every TermGuard.
#include "election/deadline_timers.h"

#include <vector>

namespace tenure {

std::shared_ptr<DeadlineTimers> DeadlineTimers::For(const std::shared_ptr<Clock>& clock) {
  static std::mutex mu;
  static std::map<const Clock*, std::weak_ptr<DeadlineTimers>> instances;
  std::lock_guard lock(mu);
  std::erase_if(instances, [](const auto& entry) { return entry.second.expired(); });
  auto& slot = instances[clock.get()];
  auto timers = slot.lock();
  if (!timers) {
    timers = std::make_shared<DeadlineTimers>(clock);
    slot = timers;
  }
  return timers;
}

DeadlineTimers::DeadlineTimers(std::shared_ptr<Clock> clock) : clock_(std::move(clock)) {
  thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
}

DeadlineTimers::~DeadlineTimers() {
  thread_.request_stop();
  {
    std::lock_guard lock(mu_);
    WakeLocked();
  }
  idle_.notify_all();
  thread_.join();
}

void DeadlineTimers::WakeLocked() {
  wake_.request_stop();
  wake_ = std::stop_source();
}

void DeadlineTimers::WakeIfSoonerLocked(Clock::TimePoint deadline) {
  if (by_deadline_.empty() || deadline < by_deadline_.begin()->first) WakeLocked();
}

uint64_t DeadlineTimers::Add(Clock::TimePoint deadline, std::function<void()> fire) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    WakeIfSoonerLocked(deadline);
    timers_[id] = Timer{deadline, std::move(fire)};
    by_deadline_.emplace(deadline, id);
  }
  idle_.notify_all();
  return id;
}

void DeadlineTimers::Move(uint64_t id, Clock::TimePoint deadline) {
  std::lock_guard lock(mu_);
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  by_deadline_.erase({it->second.deadline, id});
  WakeIfSoonerLocked(deadline);
  it->second.deadline = deadline;
  by_deadline_.emplace(deadline, id);
}

void DeadlineTimers::Cancel(uint64_t id) {
  // No wake: a thread sleeping for this deadline wakes to find nothing due and sleeps again.
  std::lock_guard lock(mu_);
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  by_deadline_.erase({it->second.deadline, id});
  timers_.erase(it);
}

void DeadlineTimers::Loop(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    if (by_deadline_.empty()) {
      idle_.wait(lock, stop, [&] { return !by_deadline_.empty(); });
      continue;
    }
    Clock::TimePoint earliest = by_deadline_.begin()->first;
    if (clock_->now() < earliest) {
      std::stop_token wake = wake_.get_token();
      lock.unlock();
      {
        // Destroyed before mu_ is taken again: its callback takes mu_, and destroying a
        // stop_callback waits for a run of it in progress.
        std::stop_callback forward(stop, [this] {
          std::lock_guard l(mu_);
          WakeLocked();
        });
        clock_->SleepUntil(earliest, wake);
      }
      lock.lock();
      continue;
    }
    std::vector<std::function<void()>> due;
    Clock::TimePoint now = clock_->now();
    while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
      auto timer = timers_.find(by_deadline_.begin()->second);
      due.push_back(std::move(timer->second.fire));
      timers_.erase(timer);
      by_deadline_.erase(by_deadline_.begin());
    }
    lock.unlock();
    for (auto& fire : due) fire();
    lock.lock();
  }
}

}  // namespace tenure
