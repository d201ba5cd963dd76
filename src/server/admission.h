// Admission: what keeps the server answering leaders under abuse, modelled on kube-apiserver's
// max-requests-inflight limits and API Priority and Fairness (which gives leader election its
// own priority level), and doing at least as well for lease traffic:
//  - every resource request gets a priority level: leader election (single-object reads and
//    writes of Leases and LeaseCandidates, and small ones of ConfigMaps, which ConfigMap locks
//    use), read-only or mutating; each level has its own in-flight limit, so a flood of other
//    requests never takes a renewal's place. Over the limit: 429 with Retry-After.
//  - expensive requests (lists, deletecollection, bodies over kExpensiveBodyBytes) run on their
//    own small pool of threads with a bounded queue (full: 429), never on the threads that
//    serve renewals.
//  - with a store whose reads block for a network round trip (etcd), every other request also
//    runs on a pool of its own, and so does every leader-election request that reads the store
//    (on a second pool, never behind the others). The HTTP threads (one per core) keep only
//    leader election's updates, which the store can send on the version they name without a
//    read or a blocked thread; what such an update must read after all (a version the store
//    does not know, a retry after a conflict) is posted to the leader-election pool.
//  - watches are long-running: not counted (kube-apiserver does not count them either). With a
//    blocking store their start (a list, the current revision) runs on their level's pool.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/http_server.h"
#include "server/request_info.h"
#include "server/stack_thread.h"

namespace tenure::server {

enum class PriorityLevel { kLeaderElection, kReadOnly, kMutating };

struct RequestClass {
  PriorityLevel level = PriorityLevel::kReadOnly;
  bool long_running = false;  // watch: exempt from the limits
  bool expensive = false;     // runs on the expensive pool
  bool read_only = false;     // get, list, watch: a read of the store
  // An update: it names the version it replaces, which a store may know without a read
  // (Store::KnownValue), so it can start on the connection's thread even with a blocking store.
  bool may_write_without_reading = false;
};

// A body larger than this makes a request expensive (its decoding, patching and validation).
inline constexpr size_t kExpensiveBodyBytes = 64 * 1024;

RequestClass Classify(const RequestInfo& info, const HttpRequest& request);
const char* PriorityLevelName(PriorityLevel level);

struct AdmissionOptions {
  // kube-apiserver's --max-requests-inflight / --max-mutating-requests-inflight defaults.
  size_t max_read_only_inflight = 400;
  size_t max_mutating_inflight = 200;
  size_t max_leader_election_inflight = 1000;
  size_t expensive_threads = 2;
  size_t expensive_queue = 64;  // waiting expensive requests beyond the running ones
  // When non-zero (the store's reads block: etcd), requests outside the leader-election level
  // that are not expensive run on this many threads of their own, so that a renewal never waits
  // on an HTTP thread behind another request's round trips to a slow or hung member. Their
  // queue holds what the in-flight limits admit.
  size_t blocking_threads = 0;
  // When non-zero (etcd, too), leader election's requests that read the store (gets, watches,
  // creates, patches, deletes) run on this many threads of their own; its updates start on the
  // HTTP threads and post what blocks (Responder::Post) to these threads. The queue holds what
  // the leader-election limit admits.
  size_t leader_election_threads = 0;
};

// Threads with a bounded queue of work. Thread-safe.
class WorkPool {
 public:
  WorkPool(size_t threads, size_t queue_limit, const char* thread_name);
  ~WorkPool();  // finishes queued work, joins the threads
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;
  // False when the queue is full or the pool stops: the caller answers for the work.
  bool Submit(std::function<void()> work);

 private:
  void Run();

  const size_t queue_limit_;
  const char* const thread_name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<StackThread> threads_;
};

// The in-flight counts per level and the expensive pool. Thread-safe.
class Admission {
 public:
  explicit Admission(AdmissionOptions options);
  ~Admission();  // finishes queued work, joins the pool

  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  // Admits a request of `cls` and runs `handle` with a responder that frees its place when it
  // answers (inline, on the expensive pool or on the blocking pool); or answers 429 itself.
  void Run(const RequestClass& cls, std::shared_ptr<Responder> responder,
           std::function<void(std::shared_ptr<Responder>)> handle);

  // Runs `work`, which may block on the store, on the blocking pool when there is one (a store
  // whose reads block), else at once; answers 429 itself when that pool's queue is full. Work
  // before admission (authentication) that cannot be decided without the store.
  void RunBlocking(const std::shared_ptr<Responder>& responder, std::function<void()> work);

  size_t inflight(PriorityLevel level) const;
  uint64_t rejected(PriorityLevel level) const;
  // Prometheus families: tenure_server_inflight_requests and
  // tenure_server_rejected_requests_total, by priority_level.
  std::string RenderMetrics() const;

 private:
  struct Level {
    size_t limit = 0;
    std::atomic<size_t> inflight{0};
    std::atomic<uint64_t> rejected{0};
  };
  Level& LevelOf(PriorityLevel level) { return levels_[static_cast<size_t>(level)]; }
  const Level& LevelOf(PriorityLevel level) const { return levels_[static_cast<size_t>(level)]; }
  // The pool a request of `cls` runs on; null: inline, on the connection's thread.
  WorkPool* PoolFor(const RequestClass& cls);
  // Where a request of `cls` posts further work (Responder::Post); null: the connection's thread.
  WorkPool* PostPoolFor(const RequestClass& cls);
  // A long-running request (a watch) with a blocking store: its start runs on its level's pool,
  // uncounted; 429 when that queue is full.
  void StartLongRunning(const RequestClass& cls, std::shared_ptr<Responder> responder,
                        std::function<void(std::shared_ptr<Responder>)> handle);

  AdmissionOptions options_;
  Level levels_[3];
  WorkPool expensive_;
  std::unique_ptr<WorkPool> blocking_;         // only when options_.blocking_threads > 0
  std::unique_ptr<WorkPool> leader_election_;  // only when options_.leader_election_threads > 0
};

}  // namespace tenure::server
