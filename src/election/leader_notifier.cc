// LeaderNotifier: on_new_leader calls in order on one thread (see leader_notifier.h).
#include "election/leader_notifier.h"

namespace tenure::election {

LeaderNotifier::LeaderNotifier(std::function<void(const std::string&)> on_new_leader)
    : fn_(std::move(on_new_leader)) {
  if (fn_) thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
}

LeaderNotifier::~LeaderNotifier() {
  if (thread_.joinable()) {
    thread_.request_stop();
    cv_.notify_all();
  }
}

void LeaderNotifier::Notify(std::string identity) {
  if (!fn_) return;
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(identity));
  }
  cv_.notify_all();
}

void LeaderNotifier::Loop(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, stop, [&] { return !queue_.empty(); });
    if (queue_.empty()) return;  // stopping
    std::string identity = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    fn_(identity);
    lock.lock();
  }
}

}  // namespace tenure::election
