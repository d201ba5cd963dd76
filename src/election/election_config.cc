// ElectionConfig's rules, checked in one place: client-go's, then tenure's (ValidateElectionConfig,
// ValidateElectionTimings), and the usable part of a lease (UsableLease).
#include <sstream>

#include "election/jitter.h"
#include "tenure/elector.h"

namespace tenure {

namespace {

Status Invalid(std::string message) { return Status(Reason::kInvalid, std::move(message)); }

// "2.5s", "0.15s": durations in validation messages.
std::string SecondsText(std::chrono::nanoseconds d) {
  std::ostringstream out;
  out << static_cast<double>(d.count()) / 1e9 << "s";
  return out.str();
}

// client-go's NewLeaderElector checks of the durations, in its order and with its messages.
Status ClientGoTimingRules(const ElectionConfig& c) {
  if (c.lease_duration <= c.renew_deadline) {
    return Invalid("leaseDuration must be greater than renewDeadline");
  }
  if (static_cast<double>(c.renew_deadline.count()) <=
      kJitterFactor * static_cast<double>(c.retry_period.count())) {
    return Invalid("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (c.lease_duration.count() < 1) return Invalid("leaseDuration must be greater than zero");
  if (c.renew_deadline.count() < 1) return Invalid("renewDeadline must be greater than zero");
  if (c.retry_period.count() < 1) return Invalid("retryPeriod must be greater than zero");
  return Status::Ok();
}

// What tenure's guarantees need of the durations beyond client-go's checks.
Status TenureTimingRules(const ElectionConfig& c) {
  if (c.lease_duration % std::chrono::seconds(1) != std::chrono::nanoseconds(0)) {
    return Invalid(
        "leaseDuration must be a whole number of seconds: the lock records "
        "leaseDurationSeconds, and that is how long other candidates wait (" +
        SecondsText(c.lease_duration) + " would be read as " +
        SecondsText(std::chrono::floor<std::chrono::seconds>(c.lease_duration)) +
        ", before this leader would stop)");
  }
  if (c.max_clock_rate_drift < 0 || c.max_clock_rate_drift >= 0.5) {
    return Invalid("maxClockRateDrift must be in [0, 0.5)");
  }
  if (c.safety_margin.count() < 0) return Invalid("safetyMargin must not be negative");
  if (c.drain_timeout.count() < 0) return Invalid("drainTimeout must not be negative");
  if (UsableLease(c) <= c.retry_period) {
    return Invalid("leaseDuration x (1 - maxClockRateDrift) - safetyMargin (" +
                   SecondsText(UsableLease(c)) + ") must be greater than retryPeriod (" +
                   SecondsText(c.retry_period) +
                   "): a leader must be able to renew before it has to stop");
  }
  return Status::Ok();
}

}  // namespace

std::chrono::nanoseconds UsableLease(const ElectionConfig& c) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(c.lease_duration *
                                                              (1.0 - c.max_clock_rate_drift)) -
         c.safety_margin;
}

Status ValidateElectionTimings(const ElectionConfig& c) {
  if (Status s = ClientGoTimingRules(c); !s.ok()) return s;
  return TenureTimingRules(c);
}

Status ValidateElectionConfig(const ElectionConfig& c) {
  if (Status s = ClientGoTimingRules(c); !s.ok()) return s;
  if (!c.callbacks.on_started_leading) return Invalid("OnStartedLeading callback must not be nil");
  if (!c.callbacks.on_stopped_leading) return Invalid("OnStoppedLeading callback must not be nil");
  if (!c.lock) return Invalid("Lock must not be nil.");
  if (c.lock->Identity().empty()) return Invalid("Lock identity is empty");
  return TenureTimingRules(c);
}

}  // namespace tenure
