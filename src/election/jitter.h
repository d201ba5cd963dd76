// Retry jitter as client-go's wait.Jitter(period, 1.2): uniform in [period, 2.2 x period).
#pragma once

#include <chrono>

namespace tenure {

inline constexpr double kJitterFactor = 1.2;
std::chrono::nanoseconds Jittered(std::chrono::nanoseconds base);

}  // namespace tenure
