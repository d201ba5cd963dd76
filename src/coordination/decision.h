// Decide: one reconcile step of coordinated leader election for one Lease, as a pure function of
// the current objects and the time (no I/O), so that every rule is unit-tested.
//
// The reference (kube-apiserver's leaderelection controller), step by step:
// 1. Candidates = the LeaseCandidates of the lease that have not expired (renewTime set and
//    younger than candidate_expiry). None: nothing to do. A candidate that ignored its last
//    ping (unanswered for election_duration) is left out until it renews.
// 2. An election is needed when the lease is absent, has no holder, has expired, a candidate is
//    due for a refresh ping (renewTime older than refresh_after), or the best candidate is not
//    the holder.
// 3. Ping every candidate that has not renewed within election_duration and has no unanswered
//    ping younger than that (pingTime = now); wait for the acks (requeue).
// 4. Acked = renewTime younger than election_duration. None: "no available candidates".
// 5. Strategy = that of the candidates with the highest binaryVersion; if they disagree the
//    lease is left alone (StrategyConflict). Another strategy (third-party, a name with "/"):
//    only spec.strategy is set, the holder is left to that strategy's controller.
// 6. OldestEmulationVersion picks the winner (ranking.h).
// 7. Absent lease: created with the winner as holder. Present: strategy set; no holder or
//    expired: the winner is assigned (renewTime now); else a different holder gets
//    preferredHolder = winner (it hands over: releases, or stops renewing and expires).
//
// Better than the reference:
// - A stale preferredHolder (its candidate gone, or no longer the best) is cleared or replaced,
//   and an expired lease is re-assigned even to the same winner, so an election never stalls.
// - Waiting for acks ends as soon as no unanswered candidate could change the outcome.
// - A candidate that ignored its ping (e.g. killed without deleting its LeaseCandidate) no
//   longer counts as "better than the holder", so it does not cause a ping round every few
//   seconds until it expires after 30 minutes.
// - The next check is scheduled when the lease expires or a candidate becomes due, so nothing
//   depends on a later event arriving.
// - A lease expires leaseDurationSeconds after the controller first saw it as it is, not after
//   its renewTime: the holder's clock never decides (SeenLease below).
// - Every decision says why, as Events on the Lease.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"

namespace tenure::coordination {

// Kubernetes' values by default.
struct ElectionTimings {
  std::chrono::nanoseconds election_duration = std::chrono::seconds(5);  // ack window
  std::chrono::seconds lease_duration = std::chrono::seconds(5);  // leaseDurationSeconds written
  std::chrono::nanoseconds requeue_interval = std::chrono::seconds(5);
  std::chrono::nanoseconds candidate_expiry = std::chrono::minutes(30);
  std::chrono::nanoseconds refresh_after = std::chrono::minutes(15);
};

struct DecisionEvent {
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string message;
  bool operator==(const DecisionEvent&) const = default;
};

struct LeaseWrite {
  bool create = false;  // else an update of the lease that was passed in
  api::LeaseSpec spec;
};

struct Decision {
  enum class Kind {
    kNoCandidates,      // no live candidate: the lease is not managed
    kNotNeeded,         // the right holder holds a valid lease
    kPinging,           // pings to send, then wait
    kWaitingForAcks,    // pings outstanding that could change the outcome
    kNoAvailable,       // no candidate answered (or none has valid versions)
    kStrategyConflict,  // lease left alone
    kThirdParty,        // only spec.strategy is managed
    kUnchanged,         // election done, the lease already says so
    kWrite,             // `write` holds the new lease
  };
  Kind kind = Kind::kNoCandidates;
  std::vector<std::string> pings;  // names of candidates to ping (set pingTime = now)
  std::optional<LeaseWrite> write;
  std::vector<DecisionEvent> events;
  std::optional<std::chrono::nanoseconds> requeue_after;
  std::string summary;  // one line for the log; "" when there is nothing to say
  // What the write does, for metrics.
  bool elected = false;     // a holder was assigned
  bool preempting = false;  // preferredHolder set to the winner
  bool preferred_cleared = false;
};

// A lease and when this controller first saw it as it is now (same resourceVersion), on the
// controller's own clock. Expiry is judged from that moment plus leaseDurationSeconds, as a
// client-go follower judges it from its observedTime, never from renewTime: the holder wrote
// renewTime with its own clock, and a holder whose clock runs behind would look expired while
// it still leads (two leaders), one whose clock runs ahead would look valid after it died.
struct SeenLease {
  api::Lease lease;
  api::Timestamp seen_at;
};

Decision Decide(const std::optional<SeenLease>& lease,
                const std::vector<api::LeaseCandidate>& candidates, api::Timestamp now,
                const ElectionTimings& timings);

}  // namespace tenure::coordination
