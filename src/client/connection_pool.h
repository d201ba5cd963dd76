// ConnectionPool: a bounded pool of keep-alive connections that callers wait for fairly.
//
// At most `capacity` connections are open, idle or lent. A caller that finds none free waits, in
// a queue served earliest deadline first (then in order of arrival), and a connection coming back
// goes to the head of that queue: a caller arriving later never takes it first. So with
// thousands of electors on a few connections, the one whose renewal has least time left is served
// next, and none waits past its deadline while later ones are served.
//
// The pool does not open connections: a lent slot without a connection (null) is the caller's
// to open one in. It matches idle connections by endpoint and by generation (of the credentials
// they were opened with); when every slot is taken and only connections to another endpoint or
// of another generation are idle, one of them is closed and its slot lent. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "client/http_connection.h"
#include "tenure/status.h"

namespace tenure::client {

class ConnectionPool {
 public:
  struct Lent {
    size_t endpoint = 0;
    std::unique_ptr<HttpConnection> connection;  // null: the borrower opens one
    uint64_t generation = 0;                     // of the credentials it was opened with
  };

  explicit ConnectionPool(size_t capacity);
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // A slot for a request to `endpoint` with credentials of `generation`: an idle connection
  // opened so, or an empty slot. Timeout when none is free by `deadline`; a caller whose deadline
  // has passed still gets a slot that is free at once and nobody waits for.
  Result<Lent> Take(size_t endpoint, uint64_t generation,
                    std::chrono::steady_clock::time_point deadline);

  // Gives a lent slot back: its connection is kept idle when `keep` (and it has one), else closed
  // and the slot freed. Either way the head of the queue is served.
  void Return(Lent lent, bool keep);

  // Closes the idle connections `drop` picks (a failed endpoint's, a replaced certificate's) and
  // frees their slots.
  void DropIdle(const std::function<bool(const Lent&)>& drop);

  size_t waiting() const;  // callers queued now (for tests)
  size_t open() const;     // slots taken: connections idle or lent (for tests)

 private:
  struct Waiter {
    std::chrono::steady_clock::time_point deadline;
    uint64_t arrival = 0;
    size_t endpoint = 0;
    uint64_t generation = 0;
    std::condition_variable granted_cv;
    std::unique_ptr<Lent> granted;  // set by the caller that served it
  };
  struct EarliestFirst {
    bool operator()(const Waiter* a, const Waiter* b) const {
      return a->deadline != b->deadline ? a->deadline < b->deadline : a->arrival < b->arrival;
    }
  };
  // Under mu_: a slot for `endpoint` and `generation` if one is free, without waiting.
  std::unique_ptr<Lent> GrantLocked(size_t endpoint, uint64_t generation);
  // Under mu_: lends to waiting callers, head first, while slots are free.
  void ServeWaitersLocked();

  const size_t capacity_;
  mutable std::mutex mu_;
  std::vector<Lent> idle_;  // most recently returned last
  size_t open_ = 0;
  uint64_t arrivals_ = 0;
  std::set<Waiter*, EarliestFirst> waiters_;
};

}  // namespace tenure::client
