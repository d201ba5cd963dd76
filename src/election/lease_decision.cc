// The election's rules as pure functions (see lease_decision.h).
#include "election/lease_decision.h"

#include <algorithm>

namespace tenure::election {

Rules Rules::Of(const ElectionConfig& config) {
  Rules rules;
  rules.identity = config.lock ? config.lock->Identity() : "";
  rules.coordinated = config.coordinated;
  rules.lease_duration = config.lease_duration;
  rules.usable_lease = UsableLease(config);
  rules.renew_deadline = config.renew_deadline;
  rules.health_tolerance = config.health_tolerance;
  return rules;
}

Clock::Duration RecordedLeaseDuration(const LeaderElectionRecord& record) {
  return std::chrono::seconds(record.lease_duration_seconds);
}

int LeaseDurationSeconds(Clock::Duration lease_duration) {
  return static_cast<int>(std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(lease_duration).count()));
}

Clock::TimePoint ExpiresAt(const Sighting& seen) {
  return seen.observed_at + RecordedLeaseDuration(seen.record.record);
}

bool ValidlyHeld(const ElectorView& view, Clock::TimePoint now) {
  if (!view.seen || view.seen->record.record.holder_identity.empty()) return false;
  return ExpiresAt(*view.seen) > now;
}

bool HeldByOther(const ElectorView& view, const Rules& rules, Clock::TimePoint now) {
  return ValidlyHeld(view, now) && view.seen->record.record.holder_identity != rules.identity;
}

FollowerStep NextFollowerStep(const ElectorView& view, const Rules& rules, Clock::TimePoint now,
                              bool watching) {
  if (!watching || !HeldByOther(view, rules, now)) return {.attempt = true};
  return {.attempt = false, .until = ExpiresAt(*view.seen)};
}

bool FollowerWakesFor(const ElectorView& view, const Rules& rules, Clock::TimePoint now,
                      Clock::TimePoint waiting_until) {
  FollowerStep step = NextFollowerStep(view, rules, now, /*watching=*/true);
  return step.attempt || step.until < waiting_until;
}

Clock::TimePoint MustStopBy(const ElectorView& view, const Rules& rules) {
  return view.last_renew_sent + rules.usable_lease;
}

Clock::Duration RenewalAttemptBudget(Clock::TimePoint now, Clock::TimePoint renew_deadline,
                                     Clock::TimePoint stop_by) {
  return std::chrono::duration_cast<Clock::Duration>(std::min(renew_deadline, stop_by) - now);
}

bool ControllerPrefersAnother(const LeaderElectionRecord& record, const ElectorView& view,
                              const Rules& rules) {
  return rules.coordinated && !record.preferred_holder.empty() && !view.draining;
}

TermEnd EndsTerm(const ObservedRecord& record, const ElectorView& view, const Rules& rules) {
  if (!view.leading || record.version <= view.own_version) return TermEnd::kNone;
  if (record.record.holder_identity != rules.identity) return TermEnd::kGivenAway;
  if (ControllerPrefersAnother(record.record, view, rules)) return TermEnd::kPreempted;
  return TermEnd::kNone;
}

bool MayRenewFromCache(const ElectorView& view, const Rules& rules, Clock::TimePoint now) {
  if (!view.leading || !ValidlyHeld(view, now)) return false;
  const LeaderElectionRecord& record = view.seen->record.record;
  if (record.holder_identity != rules.identity) return false;
  return !ControllerPrefersAnother(record, view, rules);
}

LeaderElectionRecord AcquireOrRenewRecord(const LeaderElectionRecord* current, const Rules& rules,
                                          Clock::WallTime now) {
  LeaderElectionRecord record;
  record.holder_identity = rules.identity;
  record.lease_duration_seconds = LeaseDurationSeconds(rules.lease_duration);
  record.acquire_time = record.renew_time = now;
  if (current == nullptr) return record;
  if (current->holder_identity == rules.identity) {
    record.acquire_time = current->acquire_time;
    record.leader_transitions = current->leader_transitions;
  } else {
    record.leader_transitions = current->leader_transitions + 1;
  }
  return record;
}

LeaderElectionRecord RenewedHeldRecord(LeaderElectionRecord record, const Rules& rules,
                                       Clock::WallTime wall_now) {
  // Like client-go's coordinated candidate it writes our lease duration, so the term's deadline
  // (computed from lease_duration) and what others see in the record agree.
  record.renew_time = wall_now;
  record.lease_duration_seconds = LeaseDurationSeconds(rules.lease_duration);
  return record;
}

HeldRenewal RenewHeld(const LeaderElectionRecord& current, const ElectorView& view,
                      const Rules& rules, Clock::TimePoint now, Clock::WallTime wall_now) {
  if (!ValidlyHeld(view, now) || current.holder_identity != rules.identity) return {};
  // End the term now and hand over.
  if (ControllerPrefersAnother(current, view, rules)) return {.preempted = view.leading};
  return {.write = RenewedHeldRecord(current, rules, wall_now)};
}

std::optional<LeaderElectionRecord> ReleaseRecord(const LeaderElectionRecord& current,
                                                  const Rules& rules, Clock::WallTime now) {
  if (current.holder_identity != rules.identity) return std::nullopt;
  LeaderElectionRecord released;
  released.lease_duration_seconds = 1;
  released.acquire_time = released.renew_time = now;
  released.leader_transitions = current.leader_transitions;
  if (rules.coordinated) {
    released.strategy = current.strategy;
    released.preferred_holder = current.preferred_holder;
  }
  return released;
}

DrainStep NextDrainStep(const ElectorView& view, const Rules& rules, Clock::TimePoint now,
                        Clock::TimePoint next_renewal, Clock::TimePoint give_up) {
  if (!view.seen || view.seen->record.record.holder_identity != rules.identity) return {};
  Clock::TimePoint stop_by = MustStopBy(view, rules);
  if (now >= give_up || now >= stop_by) return {};
  if (now >= next_renewal) {
    return {.action = DrainStep::Action::kRenew,
            .attempt_budget =
                std::min<Clock::Duration>({rules.renew_deadline, stop_by - now, give_up - now})};
  }
  return {.action = DrainStep::Action::kWait,
          .wait_until = std::min({next_renewal, give_up, stop_by})};
}

bool Healthy(const ElectorView& view, const Rules& rules, Clock::TimePoint now) {
  if (!view.leading || !view.seen) return true;
  return now - view.seen->observed_at <= rules.lease_duration + rules.health_tolerance;
}

bool RestartsOthersCount(const ObservedRecord* replaced, const ObservedRecord& written) {
  return replaced == nullptr || replaced->raw != written.raw;
}

}  // namespace tenure::election
