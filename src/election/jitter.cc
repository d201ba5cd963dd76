#include "election/jitter.h"

#include <random>

namespace tenure {

std::chrono::nanoseconds Jittered(std::chrono::nanoseconds base) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(0.0, kJitterFactor);
  return base + std::chrono::nanoseconds(
                    static_cast<int64_t>(static_cast<double>(base.count()) * dist(rng)));
}

}  // namespace tenure
