// What the inspection commands show of a Lease: holder, whether held, expiry (ExpiryOf, IsHeld).
#include "cli/lease_view.h"

namespace tenure::cli {

namespace {
bool HasHolder(const api::Lease& lease) {
  return lease.spec.holder_identity && !lease.spec.holder_identity->empty();
}
}  // namespace

std::optional<api::Timestamp> ExpiryOf(const api::Lease& lease) {
  return api::LeaseExpiry(lease.spec, /*or_acquire_time=*/true);
}

bool IsHeld(const api::Lease& lease, api::Timestamp now) {
  if (!HasHolder(lease)) return false;
  auto expiry = ExpiryOf(lease);
  return !expiry || *expiry > now;
}

std::string HolderText(const api::Lease& lease) {
  return HasHolder(lease) ? *lease.spec.holder_identity : "<none>";
}

Color HolderColor(const api::Lease& lease, api::Timestamp now) {
  if (!HasHolder(lease)) return Color::kDim;
  return IsHeld(lease, now) ? Color::kGreen : Color::kYellow;
}

std::string ExpiresText(const api::Lease& lease, api::Timestamp now) {
  if (!HasHolder(lease)) return "<none>";
  auto expiry = ExpiryOf(lease);
  if (!expiry) return "<unknown>";
  if (*expiry > now) return "in " + api::HumanDuration(*expiry - now);
  return "expired " + api::HumanDuration(now - *expiry) + " ago";
}

std::string LeaseDurationText(const api::Lease& lease) {
  if (!lease.spec.lease_duration_seconds) return "<none>";
  return api::HumanDuration(std::chrono::seconds(*lease.spec.lease_duration_seconds));
}

}  // namespace tenure::cli
