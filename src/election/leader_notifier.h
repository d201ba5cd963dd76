// LeaderNotifier: runs on_new_leader calls in order on a thread of its own, so a slow callback
// never blocks the elector. Without a callback it starts no thread and does nothing.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tenure::election {

class LeaderNotifier {
 public:
  explicit LeaderNotifier(std::function<void(const std::string&)> on_new_leader);
  // Delivers the calls still queued, then joins the thread.
  ~LeaderNotifier();
  LeaderNotifier(const LeaderNotifier&) = delete;
  LeaderNotifier& operator=(const LeaderNotifier&) = delete;

  void Notify(std::string identity);

 private:
  void Loop(std::stop_token stop);

  std::function<void(const std::string&)> fn_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::string> queue_;
  std::jthread thread_;
};

}  // namespace tenure::election
