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

uint64_t DeadlineTimers::Add(Clock::TimePoint deadline, std::function<void()> fire) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    timers_[id] = Timer{deadline, std::move(fire)};
    WakeLocked();
  }
  idle_.notify_all();
  return id;
}

void DeadlineTimers::Move(uint64_t id, Clock::TimePoint deadline) {
  std::lock_guard lock(mu_);
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  it->second.deadline = deadline;
  WakeLocked();
}

void DeadlineTimers::Cancel(uint64_t id) {
  std::lock_guard lock(mu_);
  if (timers_.erase(id) > 0) WakeLocked();
}

void DeadlineTimers::Loop(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    if (timers_.empty()) {
      idle_.wait(lock, stop, [&] { return !timers_.empty(); });
      continue;
    }
    Clock::TimePoint earliest = Clock::TimePoint::max();
    for (const auto& [id, t] : timers_) earliest = std::min(earliest, t.deadline);
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
    for (auto it = timers_.begin(); it != timers_.end();) {
      if (it->second.deadline <= now) {
        due.push_back(std::move(it->second.fire));
        it = timers_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    for (auto& fire : due) fire();
    lock.lock();
  }
}

}  // namespace tenure
