// A Lease's state at a moment, as the dashboard shows it.
#include "dashboard/lease_status.h"

namespace tenure::dashboard {

std::string_view LeaseStateName(LeaseState state) {
  switch (state) {
    case LeaseState::kHeld:
      return "held";
    case LeaseState::kExpiringSoon:
      return "expiring";
    case LeaseState::kExpired:
      return "expired";
    case LeaseState::kReleased:
      return "released";
    case LeaseState::kPreferredPending:
      return "pending";
  }
  return "released";
}

LeaseStatus StatusOf(const api::LeaseSpec& spec, api::Timestamp now) {
  LeaseStatus status;
  status.last_renewal = spec.renew_time ? spec.renew_time : spec.acquire_time;
  status.expires = api::LeaseExpiry(spec, /*or_acquire_time=*/true);
  const std::string holder = spec.holder_identity.value_or("");
  if (holder.empty()) {
    status.state = LeaseState::kReleased;
    return status;
  }
  if (status.expires && now >= *status.expires) {
    status.state = LeaseState::kExpired;
    return status;
  }
  // The controller named someone else, who takes over once the holder lets go.
  if (spec.preferred_holder && !spec.preferred_holder->empty() &&
      *spec.preferred_holder != holder) {
    status.state = LeaseState::kPreferredPending;
    return status;
  }
  status.state = LeaseState::kHeld;
  // A healthy holder renews long before this (client-go: every 2 s of a 15 s lease): a third of
  // the duration left means the renewals stopped at least two thirds of a lease ago.
  if (status.expires && spec.lease_duration_seconds) {
    auto third = std::chrono::seconds(*spec.lease_duration_seconds) / 3;
    if (*status.expires - now <= third) status.state = LeaseState::kExpiringSoon;
  }
  return status;
}

}  // namespace tenure::dashboard
