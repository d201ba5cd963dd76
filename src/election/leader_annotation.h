// The leader record as JSON text in the annotation control-plane.alpha.kubernetes.io/leader
// (ConfigMap and Endpoints locks): client-go's format on write; on read also the official Python
// client's non-standard one (leaseDurationSeconds as a string, naive "2026-11-29 23:05:24.543753"
// timestamps taken as UTC).
#pragma once

#include <string>

#include "tenure/leader_election_record.h"

namespace tenure {

inline constexpr const char* kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";

std::string FormatLeaderAnnotation(const LeaderElectionRecord& record);
// An empty or unreadable annotation is a record without holder (free), as in client-go.
LeaderElectionRecord ParseLeaderAnnotation(const std::string& text);

}  // namespace tenure
