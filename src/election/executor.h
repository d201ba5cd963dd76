// Executor: the threads an election's coroutine resumes on after a wait, and its on_new_leader
// calls run on (ElectionPool's).
#pragma once

#include <functional>

namespace tenure::election {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs `job` soon on one of the executor's threads (a coroutine's next step: a lambda that
  // resumes it). Quick and non-blocking: it is called from timer threads, watch threads and stop
  // callbacks.
  virtual void Post(std::function<void()> job) = 0;
};

}  // namespace tenure::election
