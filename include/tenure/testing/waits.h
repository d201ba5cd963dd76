// Waiting in tests: on a condition with a deadline, never a fixed sleep; and moving a FakeClock
// only once the code under test sleeps on it.
#pragma once

#include <chrono>
#include <thread>

#include "tenure/fake_clock.h"

namespace tenure::testing {

// Polls `pred` (really) until it holds (true) or `timeout` passes (false). The default deadline
// is generous: a condition that holds costs nothing, and sanitizer builds run several times slower.
template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Advances `clock` by `total` in `step`s, each once `sleepers` threads wait on it; false when
// they did not within 10 s (the code under test is stuck or busy).
inline bool AdvanceWhenAsleep(FakeClock& clock, std::chrono::nanoseconds total, int sleepers,
                              std::chrono::nanoseconds step = std::chrono::milliseconds(500)) {
  for (std::chrono::nanoseconds done{0}; done < total; done += step) {
    if (!clock.WaitForSleepers(sleepers, std::chrono::seconds(10))) return false;
    clock.Advance(step);
  }
  return true;
}

}  // namespace tenure::testing
