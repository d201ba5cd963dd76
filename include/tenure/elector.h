// Elector: one candidate in one leader election, with client-go's algorithm and a few
// guarantees client-go does not give.
//
// Algorithm (as client-go's leaderelection): try to acquire at once, then every RetryPeriod with
// jitter in [RetryPeriod, 2.2 x RetryPeriod); a lease is free when it has no holder or when
// observedTime + record.leaseDurationSeconds has passed on the LOCAL monotonic clock
// (observedTime is when this candidate last saw the record change, so clock offsets between
// machines do not matter). The leader renews every RetryPeriod with the cached version (no GET),
// falling back to GET + update; when it cannot renew within RenewDeadline it stops leading.
//
// Beyond client-go:
// - Watch: when the lock supports it, a follower does not poll. It wakes when the record
//   changes (a released lease is taken at once) or when the observed lease expires, and takes
//   the lease with one write at the version it saw (Lock::UpdateAt, no GET; a Conflict when the
//   record moved on, and then GET + update).
// - A leader whose watch shows a write naming another holder (an operator's forced release, a
//   controller's assignment) ends its term at once, not at its next failed renewal.
// - Fencing: each term has a token, the lock version of the write that started it; tokens
//   strictly increase across terms, also when the same identity leads again.
// - Stop before anyone can take over: the term's stop token fires at the latest at
//   S + LeaseDuration x (1 - MaxClockRateDrift) - SafetyMargin, where S is when the last
//   successful renewal was SENT. Another candidate can consider the lease expired only at
//   (its observation of that write) + LeaseDuration on its own clock, which is later as long as
//   the clocks' rates differ by less than MaxClockRateDrift. This holds also when the server is
//   unreachable or a request hangs: a separate timer fires the token. LeaseDuration must be a
//   whole number of seconds: the record carries leaseDurationSeconds, and that is what the
//   others wait (a 2.5 s lease would be read as 2 s, after the leader's 2.4 s deadline).
// - A handover drains before it releases: on release on cancel, Yield and coordinated
//   preemption the term's stop token fires, the leader keeps renewing until on_started_leading
//   has returned, and only then releases the lease. Past DrainTimeout it stops renewing without
//   releasing: the term ends as when renewal fails, and the lease expires (the token fired long
//   before, as above). A prompt callback makes the handover take milliseconds.
// - Optional re-contending after a term ends (Spring's waitAfterRenewalFailure).
//
// Threads: Run() executes the election on the caller's thread (an ElectionPool on its threads:
// tenure/election_pool.h). on_started_leading runs on a thread of its own, once per term, with a
// stop token that fires when the term ends; the elector waits for it to return only on a graceful
// handover (above). on_new_leader runs on a notifier thread (on a pool, on its threads), once per
// change of the observed holder (not for an empty holder), in order. on_stopped_leading runs on
// the Run() thread (on a pool, a pool thread) after the term's stop token fired, only for a term
// that was held (unlike client-go, which also calls it when leadership was never gained). An
// elector runs one election at a time: starting a second while one runs ends the process.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "tenure/clock.h"
#include "tenure/lock.h"
#include "tenure/status.h"

namespace tenure {

// One term of leadership.
struct LeaderTerm {
  std::string identity;
  uint64_t fencing_token = 0;
  std::chrono::system_clock::time_point acquired_at{};
};

struct ElectionCallbacks {
  // Required. Runs while leading; `stop` fires when the term ends.
  std::function<void(std::stop_token stop, const LeaderTerm& term)> on_started_leading;
  // Required. Runs when a held term has ended.
  std::function<void()> on_stopped_leading;
  // Optional. The identity of a newly observed leader (may be this candidate).
  std::function<void(const std::string& identity)> on_new_leader;
  // Optional. An attempt to read or write the lock failed, with the server's Status: Forbidden
  // names the right the credentials lack ('User "u" cannot update resource "leases" ...'),
  // Unavailable a server out of reach. Called once per distinct error (again after a success);
  // the elector keeps retrying. Races (another candidate wrote or created the lock first) are not
  // errors.
  std::function<void(const Status& error)> on_error;
};

struct ElectionConfig {
  std::shared_ptr<Lock> lock;
  std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
  // On stop, a leader writes holder "" and duration 1 s so others take over at once (after its
  // on_started_leading returned: see drain_timeout); over its last renewal at that version
  // (Lock::UpdateAt), and after a Conflict over what it reads.
  bool release_on_cancel = false;
  // How long a graceful handover (release on cancel, Yield, coordinated preemption) renews while
  // it waits for on_started_leading to return before it releases. When the callback is still
  // running then, the lease is not released but left to expire.
  std::chrono::nanoseconds drain_timeout = std::chrono::seconds(10);
  // Used in metrics labels, events and messages only.
  std::string name;
  ElectionCallbacks callbacks;
  // Clock assumption for the stop-before-takeover guarantee (see above).
  double max_clock_rate_drift = 0.01;
  std::chrono::nanoseconds safety_margin = std::chrono::milliseconds(100);
  // After a term ends for another reason than stop: campaign again after this wait
  // (nullopt: Run returns, as in client-go).
  std::optional<std::chrono::nanoseconds> recontend_after;
  // Coordinated leader election (the server's controller picks the holder among LeaseCandidates,
  // see tenure/candidate.h): never create the lease nor write our identity into it; renew only a
  // lease assigned to us, on the fast path (cached version, no GET) and with our
  // lease_duration, as client-go writes it; end the term when preferredHolder is set (at once
  // through the watch, else at the next renewal) and release the lease so the controller can
  // assign the winner without waiting for it to expire. Set recontend_after to stay a candidate.
  bool coordinated = false;
  // Tolerance of the health check: a leader that has not renewed for lease_duration + this is
  // unhealthy.
  std::chrono::nanoseconds health_tolerance = std::chrono::seconds(0);
  std::shared_ptr<Clock> clock;  // default: Clock::Real()
};

// client-go's checks, in its order and with its messages, then tenure's own: leaseDuration a
// whole number of seconds, maxClockRateDrift in [0, 0.5), safetyMargin and drainTimeout not
// negative, and a stop deadline (leaseDuration x (1 - maxClockRateDrift) - safetyMargin) after
// the first retry.
Status ValidateElectionConfig(const ElectionConfig& config);
// The same rules for the durations alone (lock and callbacks not looked at): for a program that
// checks its settings before it has built the rest, as `tenure run` does.
Status ValidateElectionTimings(const ElectionConfig& config);
// How long after sending a successful renewal a leader may still act: leaseDuration x
// (1 - maxClockRateDrift) - safetyMargin (see "Stop before anyone can take over").
std::chrono::nanoseconds UsableLease(const ElectionConfig& config);

// Counters an elector keeps; read them with Elector::metrics().
struct ElectorMetrics {
  bool is_leader = false;
  uint64_t slow_path_total = 0;    // renewals that needed a GET
  uint64_t transitions_total = 0;  // terms started by this elector
  uint64_t renew_total = 0;        // successful renewals
  uint64_t failed_attempts_total = 0;
  std::chrono::nanoseconds last_renew_latency{0};
  // Every successful renewal's duration (real time, the lock call only), as a histogram over
  // kRenewDurationBuckets: renew_duration_buckets[i] counts the renewals that took more than
  // bucket i-1 and at most bucket i seconds; the last entry those longer than every bucket.
  std::array<uint64_t, 13> renew_duration_buckets{};
  double renew_duration_sum_seconds = 0;
  uint64_t renew_duration_count = 0;
};

// Upper bounds, in seconds, of the renewal duration histogram (ElectorMetrics).
inline constexpr std::array<double, 12> kRenewDurationBuckets = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

class ElectionPool;

class Elector {
 public:
  static Result<std::unique_ptr<Elector>> Create(ElectionConfig config);
  ~Elector();
  Elector(const Elector&) = delete;
  Elector& operator=(const Elector&) = delete;

  // Campaigns and leads until `stop` is requested (or, without recontend_after, until the first
  // term ends), on the caller's thread. With release_on_cancel a leader releases the lease before
  // returning.
  void Run(std::stop_token stop);

  // Gives leadership up while staying a candidate (Spring's Context.yield()): ends the current
  // term (its stop token fires), drains (renews until on_started_leading returned), releases the
  // lease so another candidate can take it at once, calls on_stopped_leading, and campaigns again
  // after recontend_after (retry_period when unset). No effect when not leading.
  void Yield();

  bool IsLeader() const;
  // The holder last observed ("" when none).
  std::string Leader() const;
  // The current term while leading.
  std::optional<LeaderTerm> CurrentTerm() const;
  // false when leading but the last renewal is older than lease_duration + health_tolerance.
  bool Healthy() const;
  ElectorMetrics metrics() const;
  // The error of the last attempt on the lock, OK when it succeeded (see on_error).
  Status LastError() const;
  const ElectionConfig& config() const;

 private:
  friend class ElectionHandle;
  struct State;
  explicit Elector(ElectionConfig config);
  std::unique_ptr<State> state_;
};

// Runs an elector on a thread of its own, or on an ElectionPool's threads (tenure/election_pool.h)
// with thousands of others. Destroying the handle (or Stop) stops the election and waits for it
// to end (with release_on_cancel, a leader has released the lease by then).
//
//   auto election = tenure::ElectionHandle::Start(std::move(config));
//   if (!election.ok()) return fail(election.status());
//   ...  // election->elector().IsLeader()
class ElectionHandle {
 public:
  // Validates `config` (ValidateElectionConfig) and starts the election.
  static Result<ElectionHandle> Start(ElectionConfig config);
  // The same on `pool` (not null).
  static Result<ElectionHandle> Start(ElectionConfig config, std::shared_ptr<ElectionPool> pool);
  explicit ElectionHandle(std::unique_ptr<Elector> elector);
  explicit ElectionHandle(std::shared_ptr<Elector> elector);
  // Runs `elector` on `pool` (a null pool: on a thread of its own, as above).
  ElectionHandle(std::shared_ptr<Elector> elector, std::shared_ptr<ElectionPool> pool);
  ~ElectionHandle();
  ElectionHandle(ElectionHandle&&) noexcept = default;
  // Stops this handle's election first (as destroying it would), then takes `other`'s.
  ElectionHandle& operator=(ElectionHandle&& other) noexcept;
  void Stop();
  Elector& elector() { return *elector_; }
  const Elector& elector() const { return *elector_; }

 private:
  struct OnPool;
  std::shared_ptr<Elector> elector_;
  std::jthread thread_;
  std::shared_ptr<OnPool> on_pool_;
  // Released on the handle's thread once the election has ended, never on one of its own threads.
  std::shared_ptr<ElectionPool> pool_;
};

}  // namespace tenure
