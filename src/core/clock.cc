// Clock::Real (RealClock) and FakeClock: the real clock, and one tests advance by hand.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <thread>

#include "tenure/clock.h"
#include "tenure/fake_clock.h"

namespace tenure {
namespace {
// FUTEX_WAIT_BITSET's absolute timeout on CLOCK_MONOTONIC, which is steady_clock's on Linux;
// a deadline past the range of timespec is a year from now (the caller's loop waits again).
timespec MonotonicDeadline(Clock::TimePoint deadline) {
  auto now = std::chrono::steady_clock::now();
  auto year = std::chrono::hours(24 * 365);
  if (deadline - now > year) deadline = now + year;
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch());
  return timespec{static_cast<time_t>(ns.count() / 1'000'000'000),
                  static_cast<long>(ns.count() % 1'000'000'000)};
}

class RealClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  WallTime wall_now() const override { return std::chrono::system_clock::now(); }
  // A futex wait rather than a condition variable: waking from a timed condition wait leaves
  // glibc's mutex marked contended, so its unlock costs a FUTEX_WAKE system call at every sleep.
  // Every elector sleeps between renewals; with thousands in a process that call was a tenth of
  // the process's CPU. Here a sleep that times out makes one system call, and a stop one more.
  bool SleepUntil(TimePoint deadline, std::stop_token stop) const override {
    std::atomic<uint32_t> stopped{0};
    // Destroyed before `stopped`: the destructor waits for a run of the callback in progress.
    std::stop_callback wake(stop, [&stopped] {
      stopped.store(1, std::memory_order_release);
      syscall(SYS_futex, &stopped, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    });
    while (stopped.load(std::memory_order_acquire) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      timespec until = MonotonicDeadline(deadline);
      // Returns at the deadline (ETIMEDOUT), on the wake, at once when `stopped` is no longer 0
      // (EAGAIN), or on a signal (EINTR): the loop looks again in every case.
      syscall(SYS_futex, &stopped, FUTEX_WAIT_BITSET_PRIVATE, 0, &until, nullptr,
              FUTEX_BITSET_MATCH_ANY);
    }
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
