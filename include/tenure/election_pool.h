// ElectionPool: runs many elections on a few threads.
//
// ElectionHandle::Start(config) gives each election a thread of its own, which sleeps between
// renewals; with thousands of elections in one process that is thousands of threads, their
// wake-ups and their contention in malloc. An election started on a pool
// (ElectionHandle::Start(config, pool)) holds no thread while it waits for its next renewal, for
// its lock's watch or for a lease to expire, and makes its lock calls on one of the pool's
// threads. Each thread makes one call at a time, so a pool's size bounds the requests its
// elections have in flight: give it about as many threads as the Cluster has connections
// (ClusterOptions::max_connections).
//
// Every guarantee of Elector holds unchanged (tenure/elector.h). The term's stop token is fired
// by a timer of its own, not by a pool thread, so a leader stops in time also when every pool
// thread is stuck in a call to a server that hangs. What a pool shares is time: a callback that
// blocks a pool thread delays the renewals of the pool's other elections (with one thread, its
// own too: its term then ends as when the server is out of reach), and a std::stop_callback on a
// term's stop token runs on the clock's timer thread, which now also wakes every election of
// the process for its next renewal: keep both quick.
//
// Callbacks: on_started_leading still runs on a thread of its own, once per term (it may block
// for the whole term; one that returns at once and watches its stop token with a
// std::stop_callback costs a short-lived thread). on_stopped_leading, on_error and
// on_new_leader (in order, one call at a time per elector) run on a pool thread: keep them short,
// and never stop or destroy an ElectionHandle of the same pool from them, nor the pool itself.
//
//   auto pool = tenure::ElectionPool::Create({.threads = 8});
//   if (!pool.ok()) return fail(pool.status());
//   auto election = tenure::ElectionHandle::Start(std::move(config), *pool);
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "tenure/status.h"

namespace tenure {

namespace election {
class Executor;
}

struct ElectionPoolOptions {
  // Threads that make the elections' lock calls; at least 1.
  size_t threads = 8;
  // Their name as the system shows it (at most 15 bytes are kept).
  std::string thread_name = "tenure-elect";
};

class ElectionPool {
 public:
  static Result<std::shared_ptr<ElectionPool>> Create(ElectionPoolOptions options = {});
  // Joins the threads. Every ElectionHandle started on the pool holds it, so this runs after the
  // last of them has stopped.
  ~ElectionPool();
  ElectionPool(const ElectionPool&) = delete;
  ElectionPool& operator=(const ElectionPool&) = delete;

  size_t threads() const;

 private:
  friend class ElectionHandle;
  struct Impl;
  explicit ElectionPool(ElectionPoolOptions options);
  election::Executor& executor();
  std::unique_ptr<Impl> impl_;
};

}  // namespace tenure
