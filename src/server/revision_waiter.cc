// RevisionWaiter: waits for the store to reach a revision, up to a deadline, off request threads.
#include "server/revision_waiter.h"

namespace tenure::server {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);

}  // namespace

RevisionWaiter::RevisionWaiter(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock)
    : store_(std::move(store)), clock_(std::move(clock)) {}

RevisionWaiter::~RevisionWaiter() {
  std::jthread thread;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    thread = std::move(thread_);
  }
  if (thread.joinable()) {
    thread.request_stop();
    thread.join();
  }
}

void RevisionWaiter::Wait(int64_t revision, Clock::TimePoint deadline,
                          std::function<void(bool)> done) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;  // shutting down: the request goes unanswered with its connection
    waiters_.push_back({revision, deadline, std::move(done)});
    if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
  }
  waiting_.notify_one();
}

void RevisionWaiter::Run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(mu_);
      if (!waiting_.wait(lock, stop, [this] { return !waiters_.empty(); })) return;
    }
    const int64_t current = store_->CurrentRevision();
    const Clock::TimePoint now = clock_->now();
    std::vector<std::pair<std::function<void(bool)>, bool>> finished;
    {
      std::lock_guard lock(mu_);
      std::erase_if(waiters_, [&](Waiter& w) {
        if (current < w.revision && now < w.deadline) return false;
        finished.emplace_back(std::move(w.done), current >= w.revision);
        return true;
      });
    }
    for (auto& [done, reached] : finished) done(reached);
    bool more = false;
    {
      std::lock_guard lock(mu_);
      more = !waiters_.empty();
    }
    if (more) clock_->SleepFor(kPoll, stop);
  }
}

}  // namespace tenure::server
