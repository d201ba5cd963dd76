// Clock: the only way tenure reads time, so tests can inject a fake one instead of sleeping.
//
// now() is monotonic and drives every duration decision (lease expiry, renew deadline, retry
// period). wall_now() is the calendar time written into records (renewTime, acquireTime); it is
// never compared with another machine's clock. Both are safe to call from any thread.
#pragma once

#include <chrono>
#include <memory>

namespace tenure {

class Clock {
 public:
  using Duration = std::chrono::nanoseconds;
  using TimePoint = std::chrono::steady_clock::time_point;
  using WallTime = std::chrono::system_clock::time_point;

  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  virtual WallTime wall_now() const = 0;

  // The process-wide real clock.
  static std::shared_ptr<Clock> Real();
};

}  // namespace tenure
