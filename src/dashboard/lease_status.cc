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

namespace {

// A healthy holder renews long before this (client-go: every 2 s of a 15 s lease): a third of
// the duration left means the renewals stopped at least two thirds of a lease ago.
api::Timestamp ExpiringFrom(api::Timestamp expires, int32_t duration_seconds) {
  return expires - std::chrono::seconds(duration_seconds) / 3;
}

}  // namespace

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
  if (status.expires && spec.lease_duration_seconds) {
    if (now >= ExpiringFrom(*status.expires, *spec.lease_duration_seconds)) {
      status.state = LeaseState::kExpiringSoon;
    }
  }
  return status;
}

std::optional<api::Timestamp> NextStateChange(const api::LeaseSpec& spec, api::Timestamp now) {
  if (spec.holder_identity.value_or("").empty()) return std::nullopt;
  auto expires = api::LeaseExpiry(spec, /*or_acquire_time=*/true);
  if (!expires || now >= *expires) return std::nullopt;
  if (spec.lease_duration_seconds) {
    api::Timestamp expiring = ExpiringFrom(*expires, *spec.lease_duration_seconds);
    if (now < expiring) return expiring;
  }
  return expires;
}

}  // namespace tenure::dashboard
