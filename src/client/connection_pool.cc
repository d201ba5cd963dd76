// ConnectionPool: bounded keep-alive connections lent earliest deadline first, without barging.
#include "client/connection_pool.h"

namespace tenure::client {

ConnectionPool::ConnectionPool(size_t capacity) : capacity_(capacity) {}

std::unique_ptr<ConnectionPool::Lent> ConnectionPool::GrantLocked(size_t endpoint,
                                                                  uint64_t generation) {
  for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
    if (it->endpoint == endpoint && it->generation == generation) {
      auto lent = std::make_unique<Lent>(std::move(*it));
      idle_.erase(std::next(it).base());
      return lent;
    }
  }
  if (open_ < capacity_) {
    ++open_;
    return std::make_unique<Lent>(Lent{endpoint, nullptr, generation});
  }
  if (idle_.empty()) return nullptr;
  // Every slot is taken and only connections nobody here can use are idle: lend the oldest's
  // slot (the borrower closes it, outside the lock).
  auto lent = std::make_unique<Lent>(std::move(idle_.front()));
  idle_.erase(idle_.begin());
  return lent;
}

void ConnectionPool::ServeWaitersLocked() {
  while (!waiters_.empty()) {
    Waiter* head = *waiters_.begin();
    auto lent = GrantLocked(head->endpoint, head->generation);
    if (!lent) return;
    waiters_.erase(waiters_.begin());
    head->granted = std::move(lent);
    // Notified under the lock: the waiter owns `head` and may return as soon as it sees the grant.
    head->granted_cv.notify_one();
  }
}

Result<ConnectionPool::Lent> ConnectionPool::Take(size_t endpoint, uint64_t generation,
                                                  std::chrono::steady_clock::time_point deadline) {
  std::unique_ptr<Lent> lent;
  {
    std::unique_lock lock(mu_);
    if (waiters_.empty()) lent = GrantLocked(endpoint, generation);
    if (!lent) {
      Waiter self;
      self.deadline = deadline;
      self.arrival = arrivals_++;
      self.endpoint = endpoint;
      self.generation = generation;
      waiters_.insert(&self);
      while (!self.granted) {
        if (self.granted_cv.wait_until(lock, deadline) == std::cv_status::timeout &&
            !self.granted) {
          waiters_.erase(&self);
          return Status::Timeout("no connection became free in time");
        }
      }
      lent = std::move(self.granted);
    }
  }
  if (lent->endpoint != endpoint || lent->generation != generation) {
    lent->connection.reset();  // a slot freed from a connection this caller cannot use
    lent->endpoint = endpoint;
    lent->generation = generation;
  }
  return std::move(*lent);
}

void ConnectionPool::Return(Lent lent, bool keep) {
  std::unique_ptr<HttpConnection> closed;  // closed outside the lock
  std::lock_guard lock(mu_);
  if (keep && lent.connection) {
    idle_.push_back(std::move(lent));
  } else {
    closed = std::move(lent.connection);
    --open_;
  }
  ServeWaitersLocked();
}

void ConnectionPool::DropIdle(const std::function<bool(const Lent&)>& drop) {
  // Nobody waits while a connection is idle (a waiter would have been lent it), so the freed
  // slots have nobody to go to yet.
  std::vector<Lent> dropped;  // closed outside the lock
  std::lock_guard lock(mu_);
  for (auto it = idle_.begin(); it != idle_.end();) {
    if (drop(*it)) {
      dropped.push_back(std::move(*it));
      it = idle_.erase(it);
      --open_;
    } else {
      ++it;
    }
  }
}

size_t ConnectionPool::waiting() const {
  std::lock_guard lock(mu_);
  return waiters_.size();
}

size_t ConnectionPool::open() const {
  std::lock_guard lock(mu_);
  return open_;
}

}  // namespace tenure::client
