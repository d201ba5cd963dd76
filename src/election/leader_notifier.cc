// LeaderNotifier: on_new_leader calls in order, on a thread of its own or on an executor (see
// leader_notifier.h).
#include "election/leader_notifier.h"

namespace tenure::election {

LeaderNotifier::LeaderNotifier(std::function<void(const std::string&)> on_new_leader) {
  if (on_new_leader) {
    queue_ = std::make_shared<Queue>();
    queue_->fn = std::move(on_new_leader);
  }
}

LeaderNotifier::~LeaderNotifier() {
  if (queue_ == nullptr) return;
  if (thread_.joinable()) {
    thread_.request_stop();
    queue_->cv.notify_all();
    thread_.join();
  }
  std::unique_lock lock(queue_->mu);
  queue_->cv.wait(lock, [&] { return !queue_->delivering; });
}

void LeaderNotifier::RunOn(Executor* executor) {
  if (queue_ == nullptr) return;
  // The deliveries of an earlier run end first, on its thread or its executor, so that two
  // never run at once or out of order. (No call comes in between runs.)
  if (thread_.joinable()) {
    thread_.request_stop();
    queue_->cv.notify_all();
    thread_.join();
    thread_ = std::jthread();  // started again at the next call without an executor
  }
  std::unique_lock lock(queue_->mu);
  queue_->cv.wait(lock, [&] { return !queue_->delivering; });
  executor_ = executor;
}

void LeaderNotifier::Notify(std::string identity) {
  if (queue_ == nullptr) return;
  Executor* post_to = nullptr;
  {
    std::lock_guard lock(queue_->mu);
    queue_->calls.push_back(std::move(identity));
    if (executor_ != nullptr) {
      if (!queue_->delivering) post_to = executor_;
      queue_->delivering = true;
    } else if (!thread_.joinable()) {
      thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
    }
  }
  if (post_to != nullptr) {
    post_to->Post([queue = queue_] { queue->DeliverAll(); });
  } else {
    queue_->cv.notify_all();
  }
}

void LeaderNotifier::Queue::DeliverAll() {
  std::unique_lock lock(mu);
  while (!calls.empty()) {
    std::string identity = std::move(calls.front());
    calls.pop_front();
    lock.unlock();
    fn(identity);
    lock.lock();
  }
  delivering = false;
  cv.notify_all();
}

void LeaderNotifier::Loop(std::stop_token stop) {
  Queue& q = *queue_;
  std::unique_lock lock(q.mu);
  while (true) {
    q.cv.wait(lock, stop, [&] { return !q.calls.empty(); });
    if (q.calls.empty()) return;  // stopping
    std::string identity = std::move(q.calls.front());
    q.calls.pop_front();
    lock.unlock();
    q.fn(identity);
    lock.lock();
  }
}

}  // namespace tenure::election
