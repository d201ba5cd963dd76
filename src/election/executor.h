// Executor: the threads an election's coroutine resumes on after a wait (ElectionPool's).
#pragma once

#include <coroutine>

namespace tenure::election {

class Executor {
 public:
  virtual ~Executor() = default;
  // Resumes `step` soon on one of the executor's threads. Quick and non-blocking: it is called
  // from timer threads, watch threads and stop callbacks.
  virtual void Post(std::coroutine_handle<> step) = 0;
};

}  // namespace tenure::election
