// Decide: one coordinated-election reconcile step for one Lease, as a pure function (no I/O).
#include "coordination/decision.h"

#include <algorithm>

#include "api/validation.h"
#include "coordination/ranking.h"

namespace tenure::coordination {

namespace {

using Candidates = std::vector<const api::LeaseCandidate*>;
using std::chrono::nanoseconds;

constexpr nanoseconds kJustAfter = std::chrono::milliseconds(1);

bool CandidateExpired(const api::LeaseCandidate& c, api::Timestamp now, const ElectionTimings& t) {
  return !c.spec.renew_time || *c.spec.renew_time + t.candidate_expiry < now;
}

bool RenewedWithin(const api::LeaseCandidate& c, nanoseconds window, api::Timestamp now) {
  return c.spec.renew_time && *c.spec.renew_time + window > now;
}

// A ping younger than the election duration that the candidate has not answered yet.
bool PingPending(const api::LeaseCandidate& c, api::Timestamp now, const ElectionTimings& t) {
  if (!c.spec.ping_time || *c.spec.ping_time + t.election_duration <= now) return false;
  return !c.spec.renew_time || *c.spec.renew_time < *c.spec.ping_time;
}

// Ignored its last ping: left out until it renews again (it is not pinged again either, below),
// so a candidate that died without deleting its LeaseCandidate stops mattering after one ping.
bool Unresponsive(const api::LeaseCandidate& c, api::Timestamp now, const ElectionTimings& t) {
  if (!c.spec.ping_time || *c.spec.ping_time + t.election_duration > now) return false;
  return !c.spec.renew_time || *c.spec.renew_time < *c.spec.ping_time;
}

// The reference's rule: ping when never pinged, or when the last ping is old and was answered
// (a candidate that ignored its ping is not pinged again until it renews).
bool NeedsPing(const api::LeaseCandidate& c, api::Timestamp now, const ElectionTimings& t) {
  if (RenewedWithin(c, t.election_duration, now)) return false;
  if (!c.spec.ping_time) return true;
  bool old = *c.spec.ping_time + t.election_duration < now;
  bool answered = c.spec.renew_time && *c.spec.ping_time <= *c.spec.renew_time;
  return old && answered;
}

std::string Holder(const api::Lease& lease) { return lease.spec.holder_identity.value_or(""); }
std::string Preferred(const api::Lease& lease) { return lease.spec.preferred_holder.value_or(""); }

// The lease being decided on (nullptr: absent) and when it expires: leaseDurationSeconds after
// this controller first saw it as it is (never after renewTime, the holder's clock). A lease
// without renewTime or duration counts as expired, as in the reference.
struct LeaseAt {
  const api::Lease* lease = nullptr;
  std::optional<api::Timestamp> expires;
  bool Expired(api::Timestamp now) const { return !expires || *expires < now; }
};

LeaseAt Judge(const std::optional<SeenLease>& seen) {
  LeaseAt at;
  if (!seen) return at;
  at.lease = &seen->lease;
  const api::LeaseSpec& spec = seen->lease.spec;
  if (spec.renew_time && spec.lease_duration_seconds) {
    at.expires = seen->seen_at + std::chrono::seconds(*spec.lease_duration_seconds);
  }
  return at;
}

// Unlike the reference, the holder of an expired lease is pinged but not waited for: it stopped
// renewing, so it is most likely dead (it still wins if its ack arrives before the decision).
// This takes a death's handover from a lease duration plus a whole election duration down to
// about a lease duration.
bool LapsedHolder(const LeaseAt& at, const api::LeaseCandidate& c, api::Timestamp now) {
  return at.lease && Holder(*at.lease) == c.metadata.name && at.Expired(now);
}

const api::LeaseCandidate* Find(const Candidates& candidates, const std::string& name) {
  for (const api::LeaseCandidate* c : candidates) {
    if (c->metadata.name == name) return c;
  }
  return nullptr;
}

// What an election over a set of candidates comes to; equal outcomes need no more waiting.
struct Outcome {
  std::string conflict;
  std::string strategy;
  std::string winner;
  bool operator==(const Outcome&) const = default;
};

Outcome Elect(const Candidates& candidates) {
  if (candidates.empty()) return {};
  StrategyChoice choice = PickStrategy(candidates);
  Outcome out{choice.conflict, choice.strategy, ""};
  if (choice.conflict.empty() && choice.strategy == kOldestEmulationVersion) {
    if (const api::LeaseCandidate* best = PickOldestEmulationVersion(candidates)) {
      out.winner = best->metadata.name;
    }
  }
  return out;
}

void Earliest(std::optional<nanoseconds>& current, api::Timestamp at, api::Timestamp now) {
  if (at < now) return;
  nanoseconds d = std::chrono::duration_cast<nanoseconds>(at - now) + kJustAfter;
  if (!current || d < *current) current = d;
}

// When to look again without any event: the lease expires, or a candidate falls due for a
// refresh ping or expires.
std::optional<nanoseconds> NextCheck(const LeaseAt& at, const Candidates& live, api::Timestamp now,
                                     const ElectionTimings& t) {
  std::optional<nanoseconds> next;
  if (at.expires) Earliest(next, *at.expires, now);
  for (const api::LeaseCandidate* c : live) {
    Earliest(next, *c->spec.renew_time + t.refresh_after, now);
    Earliest(next, *c->spec.renew_time + t.candidate_expiry, now);
  }
  return next;
}

bool ElectionNeeded(const LeaseAt& at, const Candidates& live, api::Timestamp now,
                    const ElectionTimings& t) {
  const api::Lease* lease = at.lease;
  if (lease == nullptr || Holder(*lease).empty() || at.Expired(now)) return true;
  for (const api::LeaseCandidate* c : live) {
    if (*c->spec.renew_time + t.refresh_after < now) return true;
  }
  if (lease->spec.strategy.value_or("") != kOldestEmulationVersion) return true;
  const api::LeaseCandidate* best = PickOldestEmulationVersion(live);
  if (best == nullptr) return false;
  return best->metadata.name != Holder(*lease) || !Preferred(*lease).empty();
}

std::string Versions(const api::LeaseCandidate& c) {
  return "emulation " + c.spec.emulation_version + ", binary " + c.spec.binary_version;
}

// Why `winner` ranks before `holder` (a live candidate or nullptr).
std::string WhyBetter(const api::LeaseCandidate& winner, const api::LeaseCandidate* holder,
                      const std::string& holder_name) {
  if (holder == nullptr) return holder_name + " is not an available candidate";
  if (winner.spec.emulation_version != holder->spec.emulation_version) {
    return "emulation " + winner.spec.emulation_version + " < " + holder->spec.emulation_version;
  }
  if (winner.spec.binary_version != holder->spec.binary_version) {
    return "binary " + winner.spec.binary_version + " < " + holder->spec.binary_version;
  }
  return "same versions, " + winner.metadata.name + " is older";
}

void Conflict(Decision& d, const std::string& conflict) {
  d.kind = Decision::Kind::kStrategyConflict;
  d.summary = "strategy conflict, lease left alone: " + conflict;
  d.events.push_back({"Warning", "StrategyConflict", conflict + "; lease left alone"});
}

void ThirdParty(Decision& d, const api::Lease* lease, const std::string& strategy) {
  d.kind = Decision::Kind::kThirdParty;
  if (lease == nullptr) {
    d.write = LeaseWrite{true, {}};
    d.write->spec.strategy = strategy;
  } else if (lease->spec.strategy.value_or("") != strategy) {
    d.write = LeaseWrite{false, lease->spec};
    d.write->spec.strategy = strategy;
  }
  if (d.write) d.summary = "strategy " + strategy + " set; its own controller picks the holder";
}

// A conflict, or a strategy other than OldestEmulationVersion, ends the decision here.
bool DecidedByStrategy(Decision& d, const api::Lease* lease, const StrategyChoice& choice) {
  if (!choice.conflict.empty()) {
    Conflict(d, choice.conflict);
  } else if (choice.strategy != kOldestEmulationVersion) {
    ThirdParty(d, lease, choice.strategy);
  } else {
    return false;
  }
  return true;
}

void Assign(api::LeaseSpec& spec, const std::string& winner, api::Timestamp now,
            const ElectionTimings& t) {
  if (spec.holder_identity.value_or("") != winner) {
    spec.lease_transitions = spec.lease_transitions.value_or(0) + 1;
  }
  spec.holder_identity = winner;
  spec.preferred_holder.reset();
  spec.renew_time = api::TruncateToMicros(now);
  // The reference clears acquireTime; the assigned term starts now, which `kubectl describe`
  // and the holder's own renewals (they keep acquireTime) then show.
  spec.acquire_time = api::TruncateToMicros(now);
  spec.lease_duration_seconds = static_cast<int32_t>(t.lease_duration.count());
}

// Steps 7 and 8 for the winner among `acked`.
void Apply(Decision& d, const LeaseAt& at, const Candidates& live,
           const api::LeaseCandidate& winner, api::Timestamp now, const ElectionTimings& t) {
  const api::Lease* lease = at.lease;
  const std::string& name = winner.metadata.name;
  std::string elected =
      name + " elected: " + std::string(kOldestEmulationVersion) + ", " + Versions(winner);
  if (lease == nullptr) {
    d.write = LeaseWrite{true, {}};
    Assign(d.write->spec, name, now, t);
    d.write->spec.lease_transitions = 0;
    d.write->spec.strategy = std::string(kOldestEmulationVersion);
    d.kind = Decision::Kind::kWrite;
    d.elected = true;
    d.events.push_back({"Normal", "LeaderElected", elected});
    d.summary = elected + " (lease created)";
    d.requeue_after = t.requeue_interval;
    return;
  }
  api::LeaseSpec spec = lease->spec;
  spec.strategy = std::string(kOldestEmulationVersion);
  const std::string holder = Holder(*lease);
  const std::string preferred = Preferred(*lease);
  if (holder.empty() || at.Expired(now)) {
    Assign(spec, name, now, t);
    d.elected = true;
    d.events.push_back({"Normal", "LeaderElected", elected});
    d.summary =
        elected + (holder.empty() ? " (lease released)" : " (lease of " + holder + " expired)");
  } else if (holder != name) {
    if (preferred != name) {
      spec.preferred_holder = name;
      d.preempting = true;
      std::string message = "preferredHolder " + name + " replaces " + holder + ": " +
                            WhyBetter(winner, Find(live, holder), holder);
      if (!preferred.empty()) message += " (instead of " + preferred + ")";
      d.events.push_back({"Normal", "Preempting", message});
      d.summary = message;
    }
    // The holder hands over by releasing or by letting the lease expire: look again then.
    d.requeue_after = NextCheck(at, live, now, t);
  } else if (!preferred.empty()) {
    spec.preferred_holder.reset();
    d.preferred_cleared = true;
    std::string why = Find(live, preferred) == nullptr
                          ? "its candidate is gone, expired or not answering pings"
                          : "it is no longer the best candidate";
    std::string message =
        "preferredHolder " + preferred + " cleared: " + why + "; " + holder + " keeps the lease";
    d.events.push_back({"Normal", "PreferredHolderCleared", message});
    d.summary = message;
  }
  if (spec == lease->spec) {
    d.kind = Decision::Kind::kUnchanged;
    d.summary.clear();
    d.requeue_after = NextCheck(at, live, now, t);
    return;
  }
  d.kind = Decision::Kind::kWrite;
  d.write = LeaseWrite{false, std::move(spec)};
  if (!d.requeue_after) d.requeue_after = t.requeue_interval;
}

}  // namespace

Decision Decide(const std::optional<SeenLease>& seen,
                const std::vector<api::LeaseCandidate>& candidates, api::Timestamp now,
                const ElectionTimings& t) {
  Decision d;
  const LeaseAt at = Judge(seen);
  const api::Lease* lease = at.lease;
  // Registered: not expired. Live: registered and not known to ignore pings; only they count.
  Candidates live;
  size_t registered = 0;
  for (const api::LeaseCandidate& c : candidates) {
    if (CandidateExpired(c, now, t)) continue;
    ++registered;
    if (!Unresponsive(c, now, t)) live.push_back(&c);
  }
  if (registered == 0) return d;
  auto no_available = [&](const std::string& why) {
    d.kind = Decision::Kind::kNoAvailable;
    d.summary = "no available candidates: " + why;
    d.events.push_back({"Warning", "NoCandidates", d.summary});
    d.requeue_after = t.requeue_interval;
    return d;
  };
  if (live.empty()) {
    return no_available("none of " + std::to_string(registered) + " answered a ping in time");
  }

  // Conflicts and third-party strategies are visible without an election.
  if (DecidedByStrategy(d, lease, PickStrategy(live))) return d;
  if (!ElectionNeeded(at, live, now, t)) {
    d.kind = Decision::Kind::kNotNeeded;
    d.requeue_after = NextCheck(at, live, now, t);
    return d;
  }

  bool wait_for_pings = false;
  for (const api::LeaseCandidate* c : live) {
    if (!NeedsPing(*c, now, t)) continue;
    d.pings.push_back(c->metadata.name);
    if (!LapsedHolder(at, *c, now)) wait_for_pings = true;
  }
  if (wait_for_pings) {
    d.kind = Decision::Kind::kPinging;
    d.requeue_after = std::min(t.requeue_interval, t.election_duration + kJustAfter);
    return d;
  }

  Candidates acked, answered_or_pending;
  std::optional<nanoseconds> ping_deadline;
  for (const api::LeaseCandidate* c : live) {
    bool is_acked = RenewedWithin(*c, t.election_duration, now);
    bool pending = PingPending(*c, now, t) && !LapsedHolder(at, *c, now);
    if (is_acked) acked.push_back(c);
    if (is_acked || pending) answered_or_pending.push_back(c);
    if (pending) Earliest(ping_deadline, *c->spec.ping_time + t.election_duration, now);
  }
  // The reference waits for every outstanding ping; waiting is pointless when the outcome is
  // the same whether or not they answer.
  if (ping_deadline && Elect(acked) != Elect(answered_or_pending)) {
    d.kind = Decision::Kind::kWaitingForAcks;
    d.requeue_after = std::min(t.requeue_interval, *ping_deadline);
    return d;
  }
  if (acked.empty()) {
    return no_available("none of " + std::to_string(registered) + " answered a ping in time");
  }
  if (DecidedByStrategy(d, lease, PickStrategy(acked))) return d;
  const api::LeaseCandidate* winner = PickOldestEmulationVersion(acked);
  if (winner == nullptr) return no_available("no answering candidate has valid versions");
  Apply(d, at, live, *winner, now, t);
  return d;
}

}  // namespace tenure::coordination
