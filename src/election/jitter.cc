// Jittered: a retry period with client-go's jitter, uniform in [period, 2.2 x period).
#include "election/jitter.h"

#include <random>

namespace tenure {

std::chrono::nanoseconds Jittered(std::chrono::nanoseconds base) {
  // A tiny generator: every elector thread has one (an mt19937_64 would cost 2.5 KiB each).
  thread_local std::minstd_rand rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(0.0, kJitterFactor);
  return base + std::chrono::nanoseconds(
                    static_cast<int64_t>(static_cast<double>(base.count()) * dist(rng)));
}

}  // namespace tenure
