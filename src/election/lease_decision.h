// The election's rules as pure functions: from what a candidate last saw of the lock, when it saw
// it change, its configuration and the time now, to what it does next (attempt, wait until,
// renew, stop by) and what it writes. No I/O, no locks, no threads: the Elector's loop
// (elector.cc) asks and does. Every duration is a Clock::Duration; the record's whole seconds
// are converted in one place (RecordedLeaseDuration / LeaseDurationSeconds).
#pragma once

#include <optional>
#include <string>

#include "tenure/clock.h"
#include "tenure/elector.h"
#include "tenure/lock.h"

namespace tenure::election {

// The facts of one candidate the rules use, taken from its ElectionConfig once.
struct Rules {
  std::string identity;
  bool coordinated = false;
  Clock::Duration lease_duration{};  // a whole number of seconds (ValidateElectionTimings)
  // How long after sending a successful renewal the leader may still act (UsableLease).
  Clock::Duration usable_lease{};
  Clock::Duration renew_deadline{};
  // How much longer than lease_duration a leader may go without a change it observed of its
  // record before it reports itself unhealthy.
  Clock::Duration health_tolerance{};

  static Rules Of(const ElectionConfig& config);
};

// What a candidate last saw of the lock, and when the record's bytes last changed by its own
// monotonic clock (client-go's observedTime: other machines' clocks never matter).
struct Sighting {
  ObservedRecord record;
  Clock::TimePoint observed_at{};
};

// Where a candidate stands: what it saw, whether it leads, and its last write.
struct ElectorView {
  std::optional<Sighting> seen;
  bool leading = false;
  // A graceful handover waits for the term's work: renewals go on although the term ended.
  bool draining = false;
  // The version of our latest successful write: a record after it is someone else's.
  int64_t own_version = 0;
  // When the last renewal that changed the record was sent (the stop deadline counts from it).
  Clock::TimePoint last_renew_sent{};
};

// The duration a record asks the others to wait, and the whole seconds a candidate writes.
Clock::Duration RecordedLeaseDuration(const LeaderElectionRecord& record);
int LeaseDurationSeconds(Clock::Duration lease_duration);

// When the lease seen runs out for this candidate: observed_at + the recorded duration.
Clock::TimePoint ExpiresAt(const Sighting& seen);
// Held by someone at `now`: a holder is named and the lease seen has not run out.
bool ValidlyHeld(const ElectorView& view, Clock::TimePoint now);
// Validly held by another candidate: nothing to try until that changes.
bool HeldByOther(const ElectorView& view, const Rules& rules, Clock::TimePoint now);

// A candidate that does not lead: attempt now, or wait (without requests) until `until` unless
// the record changes first. Only a watching candidate waits; one that polls attempts.
struct FollowerStep {
  bool attempt = true;
  Clock::TimePoint until{};
};
FollowerStep NextFollowerStep(const ElectorView& view, const Rules& rules, Clock::TimePoint now,
                              bool watching);
// A watching follower that waits until `waiting_until` has seen a change of the record: whether
// it must wake to decide again, i.e. whether its next step now comes sooner. A renewal by the
// holder only moves the expiry later, so it wakes nobody; a release, a new holder with a
// shorter lease or a deletion does.
bool FollowerWakesFor(const ElectorView& view, const Rules& rules, Clock::TimePoint now,
                      Clock::TimePoint waiting_until);

// The latest moment the leader may still act: the stop-before-takeover guarantee.
Clock::TimePoint MustStopBy(const ElectorView& view, const Rules& rules);
// What one renewal attempt started at `now` may take: until the renew deadline, or until the
// stop deadline when that comes first (after a hung server there is still time to try again).
// Zero or less: no attempt is of use any more.
Clock::Duration RenewalAttemptBudget(Clock::TimePoint now, Clock::TimePoint renew_deadline,
                                     Clock::TimePoint stop_by);

// Coordinated: whether the controller's preferredHolder in `record` asks the leader to hand over.
// Any preferredHolder named does, except while draining (that term has ended already and renews
// until its work stopped).
bool ControllerPrefersAnother(const LeaderElectionRecord& record, const ElectorView& view,
                              const Rules& rules);

// Whether a record someone else wrote ends the current term: one written after our own last
// write that names another holder (an operator's forced release, a controller's assignment), or
// one in which the controller prefers another holder (ControllerPrefersAnother).
enum class TermEnd { kNone, kGivenAway, kPreempted };
TermEnd EndsTerm(const ObservedRecord& record, const ElectorView& view, const Rules& rules);

// The fast path: a leader writes over the record it last saw, without reading it first, while
// that record is valid, still names it and (coordinated) prefers no one else. client-go's
// IsLeader(): the watch may have shown the lease given away, and the cached version would
// overwrite that.
bool MayRenewFromCache(const ElectorView& view, const Rules& rules, Clock::TimePoint now);

// The record that acquires or renews (client-go's tryAcquireOrRenew) over `current` (nullptr:
// the lock object does not exist yet): our identity and lease duration, acquireTime and
// transitions kept while we hold it, transitions + 1 when it changes hands.
LeaderElectionRecord AcquireOrRenewRecord(const LeaderElectionRecord* current, const Rules& rules,
                                          Clock::WallTime now);

// A renewal that only renews a lease naming us, keeping every field but renewTime and the
// duration: the coordinated leader (the controller assigns the lease) and a draining one (it must
// not take back a lease given away meanwhile). The write, when one is due; `preempted` when
// the controller prefers another candidate and the term should end and hand over.
struct HeldRenewal {
  std::optional<LeaderElectionRecord> write;
  bool preempted = false;
};
HeldRenewal RenewHeld(const LeaderElectionRecord& current, const ElectorView& view,
                      const Rules& rules, Clock::TimePoint now, Clock::WallTime wall_now);
// The fast-path form of the same write over the cached record (checked by MayRenewFromCache).
LeaderElectionRecord RenewedHeldRecord(LeaderElectionRecord record, const Rules& rules,
                                       Clock::WallTime wall_now);

// client-go's release: holder "" and a 1 s duration so others take over at once; coordinated,
// the controller's fields stay (it assigns the next holder). nullopt when the lease is no longer
// ours to release.
std::optional<LeaderElectionRecord> ReleaseRecord(const LeaderElectionRecord& current,
                                                  const Rules& rules, Clock::WallTime now);

// One step of a graceful handover's drain, which renews a lease naming us a retry period apart
// (`next_renewal`) until the term's work stopped. It gives up when the lease seen no longer
// names us, at `give_up` (drain_timeout after the drain began) or once the leader must stop
// (MustStopBy); a renewal gets at most renew_deadline and never more than is left before either
// deadline; otherwise it waits for the next renewal or the first deadline, unless the record
// changes first.
struct DrainStep {
  enum class Action { kGiveUp, kRenew, kWait };
  Action action = Action::kGiveUp;
  Clock::Duration attempt_budget{};  // kRenew
  Clock::TimePoint wait_until{};     // kWait
};
DrainStep NextDrainStep(const ElectorView& view, const Rules& rules, Clock::TimePoint now,
                        Clock::TimePoint next_renewal, Clock::TimePoint give_up);

// The health check: a leader is unhealthy once the record it last saw changed longer than
// lease_duration + health_tolerance ago (its renewals no longer land); a candidate that does not
// lead, or has seen nothing yet, is healthy.
bool Healthy(const ElectorView& view, const Rules& rules, Clock::TimePoint now);

// Whether our write of `written` over `replaced` (nullptr: created) moves the stop deadline:
// others restart their count only when the record's bytes change, so a write that changed nothing
// (the server keeps such a no-op's resourceVersion) must not move it either.
bool RestartsOthersCount(const ObservedRecord* replaced, const ObservedRecord& written);

}  // namespace tenure::election
