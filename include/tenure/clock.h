// Clock: the only way tenure reads time and waits, so tests inject a FakeClock instead of
// sleeping.
//
// now() is monotonic and drives every duration decision (lease expiry, renew deadline, retry
// period). wall_now() is the calendar time written into records (renewTime, acquireTime); it is
// never compared with another machine's clock. SleepUntil waits on this clock and returns early
// (false) when `stop` is requested. All methods are safe to call from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <stop_token>

namespace tenure {

class Clock {
 public:
  using Duration = std::chrono::nanoseconds;
  using TimePoint = std::chrono::steady_clock::time_point;
  using WallTime = std::chrono::system_clock::time_point;

  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  virtual WallTime wall_now() const = 0;
  // Waits until now() >= deadline (true) or until stop is requested (false).
  virtual bool SleepUntil(TimePoint deadline, std::stop_token stop) const = 0;
  bool SleepFor(Duration d, std::stop_token stop) const { return SleepUntil(now() + d, stop); }

  // The process-wide real clock.
  static std::shared_ptr<Clock> Real();
};

}  // namespace tenure
