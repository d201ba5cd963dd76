// LeaderNotifier: runs on_new_leader calls in order, never on the elector's own path: on a thread
// of its own, started at the first call, so that a slow callback never blocks the elector; or on
// an election pool's threads (RunOn), one call at a time, where a slow callback holds a pool
// thread. Without a callback it does nothing.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "election/executor.h"

namespace tenure::election {

class LeaderNotifier {
 public:
  explicit LeaderNotifier(std::function<void(const std::string&)> on_new_leader);
  // Delivers the calls still queued, then returns (joining its thread, if it has one).
  ~LeaderNotifier();
  LeaderNotifier(const LeaderNotifier&) = delete;
  LeaderNotifier& operator=(const LeaderNotifier&) = delete;

  // From now on delivers the calls on `executor` (null: on a thread of its own), once those
  // delivered so far have run. Between runs of the elector: no Notify comes meanwhile.
  void RunOn(Executor* executor);
  void Notify(std::string identity);

 private:
  // What a delivery posted to an executor holds, so that it never outlives what it uses.
  struct Queue {
    std::function<void(const std::string&)> fn;
    std::mutex mu;
    std::condition_variable_any cv;
    std::deque<std::string> calls;
    bool delivering = false;  // a delivery is posted to the executor or running there
    void DeliverAll();
  };
  void Loop(std::stop_token stop);

  std::shared_ptr<Queue> queue_;
  Executor* executor_ = nullptr;  // guarded by queue_->mu, as thread_ is
  std::jthread thread_;
};

}  // namespace tenure::election
