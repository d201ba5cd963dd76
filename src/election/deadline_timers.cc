// DeadlineTimers: one thread per Clock firing callbacks at deadlines, shared by every TermGuard.
#include "election/deadline_timers.h"

#include <algorithm>
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

DeadlineTimers::DeadlineTimers(std::shared_ptr<Clock> clock)
    : clock_(std::move(clock)),
      coalescing_(clock_ == Clock::Real() ? kCoalescing : Clock::Duration::zero()) {
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

Clock::TimePoint DeadlineTimers::LatestFor(Clock::TimePoint deadline, bool coalesced) const {
  if (!coalesced) return deadline;
  // A wait "forever" (max()) stays forever instead of overflowing into the past.
  return deadline > Clock::TimePoint::max() - coalescing_ ? Clock::TimePoint::max()
                                                          : deadline + coalescing_;
}

Clock::TimePoint DeadlineTimers::WakeAtLocked() const {
  Clock::TimePoint at = Clock::TimePoint::max();
  if (!by_deadline_.empty()) at = by_deadline_.begin()->first;
  if (!coalesced_.empty()) at = std::min(at, LatestFor(coalesced_.begin()->first, true));
  return at;
}

void DeadlineTimers::WakeIfSoonerLocked(Clock::TimePoint at) {
  if (at < WakeAtLocked()) WakeLocked();
}

uint64_t DeadlineTimers::Add(Clock::TimePoint deadline, std::function<void()> fire) {
  return AddTo(deadline, std::move(fire), /*coalesced=*/false);
}

uint64_t DeadlineTimers::AddCoalesced(Clock::TimePoint deadline, std::function<void()> fire) {
  return AddTo(deadline, std::move(fire), /*coalesced=*/true);
}

uint64_t DeadlineTimers::AddTo(Clock::TimePoint deadline, std::function<void()> fire,
                               bool coalesced) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    WakeIfSoonerLocked(LatestFor(deadline, coalesced));
    Timer& timer = timers_[id] = Timer{deadline, std::move(fire), coalesced};
    QueueOf(timer).emplace(deadline, id);
  }
  idle_.notify_all();
  return id;
}

void DeadlineTimers::Move(uint64_t id, Clock::TimePoint deadline) {
  std::lock_guard lock(mu_);
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  Timer& timer = it->second;
  QueueOf(timer).erase({timer.deadline, id});
  WakeIfSoonerLocked(LatestFor(deadline, timer.coalesced));
  timer.deadline = deadline;
  QueueOf(timer).emplace(deadline, id);
}

void DeadlineTimers::Cancel(uint64_t id) {
  // No wake: a thread sleeping for this deadline wakes to find nothing due and sleeps again.
  std::lock_guard lock(mu_);
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  QueueOf(it->second).erase({it->second.deadline, id});
  timers_.erase(it);
}

void DeadlineTimers::Loop(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    if (timers_.empty()) {
      idle_.wait(lock, stop, [&] { return !timers_.empty(); });
      continue;
    }
    const Clock::TimePoint wake_at = WakeAtLocked();
    if (clock_->now() < wake_at) {
      std::stop_token wake = wake_.get_token();
      lock.unlock();
      {
        // Destroyed before mu_ is taken again: its callback takes mu_, and destroying a
        // stop_callback waits for a run of it in progress.
        std::stop_callback forward(stop, [this] {
          std::lock_guard l(mu_);
          WakeLocked();
        });
        clock_->SleepUntil(wake_at, wake);
      }
      lock.lock();
      continue;
    }
    // Every timer due by now, exact or coalesced.
    std::vector<std::function<void()>> due;
    const Clock::TimePoint now = clock_->now();
    for (Queue* queue : {&by_deadline_, &coalesced_}) {
      while (!queue->empty() && queue->begin()->first <= now) {
        auto timer = timers_.find(queue->begin()->second);
        due.push_back(std::move(timer->second.fire));
        timers_.erase(timer);
        queue->erase(queue->begin());
      }
    }
    lock.unlock();
    for (auto& fire : due) fire();
    lock.lock();
  }
}

}  // namespace tenure
