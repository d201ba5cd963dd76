// What the inspection commands say about a Lease at a given moment: who holds it, whether the
// hold is still valid, when it expires. Expiry is renewTime + leaseDurationSeconds read on this
// machine's clock, the way an observer without the candidates' local clocks can judge it.
#pragma once

#include <optional>
#include <string>

#include "api/types.h"
#include "cli/output_format.h"

namespace tenure::cli {

// renewTime (or acquireTime) + leaseDurationSeconds; nullopt when either is missing.
std::optional<api::Timestamp> ExpiryOf(const api::Lease& lease);
// A holder is named and the lease has not expired (a lease without times counts as held).
bool IsHeld(const api::Lease& lease, api::Timestamp now);
// The holder's identity, or "<none>".
std::string HolderText(const api::Lease& lease);
// Green while held, yellow when the holder's lease expired, dim without a holder.
Color HolderColor(const api::Lease& lease, api::Timestamp now);
// "in 12s", "expired 3s ago", "<none>" without a holder, "<unknown>" without times.
std::string ExpiresText(const api::Lease& lease, api::Timestamp now);
// "5s", or "<none>" when the field is absent.
std::string LeaseDurationText(const api::Lease& lease);

}  // namespace tenure::cli
