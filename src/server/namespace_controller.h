// NamespaceController: finishes what deleting a namespace starts, as kube's namespace controller
// does. A namespace marked for deletion (deletionTimestamp set, "kubernetes" still among its
// spec.finalizers) has its objects of every namespaced kind deleted; once none is left, the
// "kubernetes" finalizer is removed (kube's /finalize) and, with no finalizer left, the namespace
// itself. Nothing new enters a terminating namespace meanwhile (AdmitIntoNamespace).
//
// Started with the server: it lists the namespaces (one left terminating by a stopped server is
// finished too), then follows them with a watch. The watch callback only queues names; one worker
// thread writes, in the order the namespaces came; one whose writes raced others goes to the back
// and is tried again after a pause. Stopping interrupts a namespace between two of its writes.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"
#include "tenure/clock.h"
#include "tenure/status.h"

namespace tenure::server {

class NamespaceController {
 public:
  // `clock` dates the status conditions it sets.
  static Result<std::unique_ptr<NamespaceController>> Start(std::shared_ptr<store::Store> store,
                                                            std::shared_ptr<Clock> clock);
  // Stops the watch and joins the worker (a namespace half done is finished at the next start).
  ~NamespaceController();

  NamespaceController(const NamespaceController&) = delete;
  NamespaceController& operator=(const NamespaceController&) = delete;

 private:
  NamespaceController(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock);
  // Queues the namespace of a stored Namespace object when it is marked for deletion.
  void Consider(const std::string& stored);
  void Run();
  // One pass over namespace `name`: true when there is nothing more to do for it, false when a
  // write raced another and it must be tried again.
  bool Finish(const std::string& name);

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  std::condition_variable wake_;
  // First in, first out: a namespace tried again waits behind the others (guarded by mu_).
  std::deque<std::string> queue_;
  std::set<std::string> queued_;
  std::atomic<bool> stopping_{false};  // also read by Finish between its writes
  std::unique_ptr<store::WatchHandle> watch_;
  std::thread worker_;
};

}  // namespace tenure::server
