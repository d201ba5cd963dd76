// Clock::Real (RealClock) and FakeClock: the real clock, and one tests advance by hand.
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "tenure/clock.h"
#include "tenure/fake_clock.h"

namespace tenure {
namespace {
class RealClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  WallTime wall_now() const override { return std::chrono::system_clock::now(); }
  bool SleepUntil(TimePoint deadline, std::stop_token stop) const override {
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait_until(lock, stop, deadline, [] { return false; });
    return !stop.stop_requested();
  }
};
}  // namespace

std::shared_ptr<Clock> Clock::Real() {
  static const std::shared_ptr<Clock> clock = std::make_shared<RealClock>();
  return clock;
}

FakeClock::FakeClock()
    : now_(std::chrono::steady_clock::time_point(std::chrono::hours(1000))),
      wall_(std::chrono::sys_days(std::chrono::year(2026) / 1 / 1)) {}

Clock::TimePoint FakeClock::now() const {
  std::lock_guard lock(mu_);
  return now_;
}

Clock::WallTime FakeClock::wall_now() const {
  std::lock_guard lock(mu_);
  return wall_;
}

bool FakeClock::SleepUntil(TimePoint deadline, std::stop_token stop) const {
  std::unique_lock lock(mu_);
  auto entry = sleepers_.insert(sleepers_.end(), {deadline, stop});
  changed_.notify_all();
  bool reached = changed_.wait(lock, stop, [&] { return now_ >= deadline; });
  sleepers_.erase(entry);
  return reached && !stop.stop_requested();
}

void FakeClock::Advance(Duration d) {
  {
    std::lock_guard lock(mu_);
    now_ += d;
    wall_ += std::chrono::duration_cast<WallTime::duration>(d);
  }
  changed_.notify_all();
}

int FakeClock::SleepersLocked() const {
  return static_cast<int>(std::count_if(sleepers_.begin(), sleepers_.end(), [&](const Sleeper& s) {
    return s.deadline > now_ && !s.stop.stop_requested();
  }));
}

int FakeClock::sleepers() const {
  std::lock_guard lock(mu_);
  return SleepersLocked();
}

bool FakeClock::WaitForSleepers(int n, std::chrono::milliseconds real_timeout) const {
  std::unique_lock lock(mu_);
  std::stop_source never;
  return changed_.wait_until(lock, never.get_token(),
                             std::chrono::steady_clock::now() + real_timeout,
                             [&] { return SleepersLocked() >= n; });
}

}  // namespace tenure
