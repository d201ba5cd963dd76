// Kubernetes timestamps: metav1.Time (RFC 3339, whole seconds) and metav1.MicroTime (RFC 3339
// with exactly six fractional digits), always rendered in UTC; and kubectl's human durations.
//
// A Timestamp is a system_clock time point; values parsed here are truncated to microseconds,
// so Format/Parse round-trips a MicroTime exactly.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace tenure::api {

using Timestamp = std::chrono::system_clock::time_point;

// "2023-12-05T02:33:08.685777Z" (truncated, never rounded, to microseconds).
std::string FormatMicroTime(Timestamp t);
// "2024-01-01T00:00:00Z" (truncated to seconds).
std::string FormatTime(Timestamp t);
// Any RFC 3339 date-time: "2024-01-01T00:00:00Z", "...08.685Z", "...08.123456789+02:00".
// Returns nullopt when the text is not one. The result is truncated to microseconds.
std::optional<Timestamp> ParseTime(std::string_view text);
// Truncates to the precision of a MicroTime / Time.
Timestamp TruncateToMicros(Timestamp t);
Timestamp TruncateToSeconds(Timestamp t);

// kubectl's duration.HumanDuration: "0s", "45s", "5m12s", "3h4m", "2d3h", "10d", "2y3d",
// "<invalid>" for more than one second in the future.
std::string HumanDuration(std::chrono::nanoseconds d);

}  // namespace tenure::api
