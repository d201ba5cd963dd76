// ElectionPool: a fixed set of threads that run what the elections post (a coroutine's next
// step, an on_new_leader delivery) in the order it was posted.
#include "tenure/election_pool.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "election/executor.h"

namespace tenure {

struct ElectionPool::Impl final : election::Executor {
  explicit Impl(const ElectionPoolOptions& options) {
    std::string name = options.thread_name.substr(0, 15);
    threads.reserve(options.threads);
    for (size_t i = 0; i < options.threads; ++i) {
      threads.emplace_back([this, name](std::stop_token stop) {
        pthread_setname_np(pthread_self(), name.c_str());
        Loop(stop);
      });
    }
  }
  ~Impl() override {
    for (auto& thread : threads) thread.request_stop();
    ready.notify_all();
    threads.clear();  // joins
  }

  void Post(std::function<void()> job) override {
    {
      std::lock_guard lock(mu);
      queue.push_back(std::move(job));
    }
    ready.notify_one();
  }

  void Loop(std::stop_token stop) {
    std::unique_lock lock(mu);
    while (true) {
      ready.wait(lock, stop, [this] { return !queue.empty(); });
      if (queue.empty()) return;  // stopped
      std::function<void()> job = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      job();
      job = nullptr;  // what it holds is released outside the lock
      lock.lock();
    }
  }

  std::mutex mu;
  std::condition_variable_any ready;
  std::deque<std::function<void()>> queue;
  std::vector<std::jthread> threads;
};

Result<std::shared_ptr<ElectionPool>> ElectionPool::Create(ElectionPoolOptions options) {
  if (options.threads == 0) {
    return Status(Reason::kInvalid, "ElectionPoolOptions.threads must be at least 1");
  }
  return std::shared_ptr<ElectionPool>(new ElectionPool(std::move(options)));
}

ElectionPool::ElectionPool(ElectionPoolOptions options) : impl_(std::make_unique<Impl>(options)) {}

ElectionPool::~ElectionPool() = default;

size_t ElectionPool::threads() const { return impl_->threads.size(); }

election::Executor& ElectionPool::executor() { return *impl_; }

}  // namespace tenure
