// Reconciler: the work loop of the coordinated election controller. It keeps caches of every
// LeaseCandidate and of the Leases they run for (all namespaces, list + watch; the events of
// other Leases are turned away unparsed, and a Lease is read from the server when it gets its
// first candidate), queues the key namespace/leaseName whenever a candidate or lease changes,
// and one worker applies Decide (decision.h) to each key:
// pings (in parallel), the lease write (only on change, with optimistic concurrency: a conflict
// just requeues), Events on the Lease, one log line per decision, metrics. Expired candidates
// are deleted every gc_interval. It talks to the API only through a KubeClient, so it works
// the same against tenure's loopback and a real kube-apiserver.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/kube_client.h"
#include "coordination/candidate_index.h"
#include "coordination/controller_metrics.h"
#include "coordination/decision.h"
#include "coordination/work_queue.h"
#include "tenure/clock.h"

namespace tenure::coordination {

struct ReconcilerOptions {
  ElectionTimings timings;
  std::chrono::nanoseconds gc_interval = std::chrono::minutes(30);
  std::string candidate_version = "v1beta1";  // the served LeaseCandidate version
  std::shared_ptr<Clock> clock;
  std::function<void(const std::string& line)> log;  // one line per decision
};

class Reconciler {
 public:
  Reconciler(std::shared_ptr<client::KubeClient> client, ReconcilerOptions options,
             ControllerMetrics& metrics, client::EventRecorder& events);
  ~Reconciler();

  // Reconciles until `stop` is requested.
  void Run(std::stop_token stop);

 private:
  struct KeyState {
    std::string last_notice;  // summary of the last decision reported
    Clock::TimePoint last_notice_at{};
    std::string last_error;  // of the last failed write, logged once
    int failures = 0;        // consecutive failed writes: the retry backs off
    // The lease's resourceVersion when last decided on, and when (wall clock) this controller
    // first saw that version: expiry is judged from then (decision.h, SeenLease).
    std::string lease_version;
    api::Timestamp lease_seen_at{};
  };

  void OnCandidate(const std::string& type, const nlohmann::json& object);
  // Brings index_ up to a candidate's event; the keys of the leases to reconcile for it: the one
  // it runs for (unless the change is our own ping), the one it left, the one of a candidate that
  // went or can no longer be read.
  std::vector<std::string> Track(const std::string& type, const nlohmann::json& object);
  void OnLease(const std::string& type, const nlohmann::json& object);
  void OnSynced();
  void Reconcile(const std::string& key);
  void SendPings(const std::string& ns, const std::string& lease,
                 const std::vector<std::string>& names);
  Status WriteLease(const std::string& ns, const std::string& name, const LeaseWrite& write);
  void Notify(const std::string& ns, const std::string& name, const Decision& decision,
              bool written);
  void Retry(const std::string& key);
  // The lease of `key` gets its first candidate: its copy is read at its next reconcile.
  void MarkUnread(const std::string& key);
  bool TakeUnread(const std::string& key);
  // Reads the lease into the Lease copy (or drops the copy when the lease is gone).
  Status ReadLease(const std::string& ns, const std::string& name);
  void CollectGarbage();
  // The LeaseCandidate `name` in `ns` at the served version.
  std::string CandidatePath(const std::string& ns, const std::string& name) const;

  std::shared_ptr<client::KubeClient> client_;
  ReconcilerOptions options_;
  ControllerMetrics& metrics_;
  client::EventRecorder& events_;
  WorkQueue queue_;
  std::map<std::string, KeyState> state_;  // worker thread only
  // Set by Run while both informers exist: their handlers read each other's cache.
  std::atomic<bool> ready_{false};
  CandidateIndex index_;  // from the candidates' events: which leases have candidates
  // Keys of leases whose copy may be missing or stale: their events were turned away while they
  // had no candidate. A delivery taken in since clears the mark.
  std::mutex unread_mu_;
  std::set<std::string> unread_;
  // Set once the candidates were listed: Run starts the Lease informer then.
  std::mutex listed_mu_;
  std::condition_variable_any listed_cv_;
  bool candidates_listed_ = false;
  std::unique_ptr<client::Informer> candidates_;
  std::unique_ptr<client::Informer> leases_;
};

}  // namespace tenure::coordination
