// What the dashboard says about one Lease at a given moment: its state (held, expiring soon,
// expired, released, or a preferred holder pending), when it expires and when it was last
// renewed. Expiry is renewTime (else acquireTime) + leaseDurationSeconds on the observer's
// clock, the way an observer without the candidates' clocks judges it. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/types.h"

namespace tenure::dashboard {

enum class LeaseState {
  kHeld,              // a holder whose lease runs for more than a third of its duration still
  kExpiringSoon,      // a holder whose lease ends within a third of its duration: renewals stopped
  kExpired,           // a holder whose lease ran out: anyone may take it
  kReleased,          // no holder (released, or never held)
  kPreferredPending,  // coordinated: the controller prefers another holder, who has not taken it
};

std::string_view LeaseStateName(LeaseState state);  // "held", "expiring", ...

struct LeaseStatus {
  LeaseState state = LeaseState::kReleased;
  std::optional<api::Timestamp> expires;       // none without the times
  std::optional<api::Timestamp> last_renewal;  // renewTime, else acquireTime
};

LeaseStatus StatusOf(const api::LeaseSpec& spec, api::Timestamp now);

// The next moment after `now` at which StatusOf's state changes by time alone (held to expiring
// soon, to expired); none when it no longer will.
std::optional<api::Timestamp> NextStateChange(const api::LeaseSpec& spec, api::Timestamp now);

}  // namespace tenure::dashboard
