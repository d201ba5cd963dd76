// Kubernetes timestamps: metav1.Time (RFC 3339, whole seconds) and metav1.MicroTime (RFC 3339
// with exactly six fractional digits), always rendered in UTC; and kubectl's human durations.
//
// A Timestamp is a system_clock time point; values parsed here are truncated to microseconds,
// so Format/Parse round-trips a MicroTime exactly.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tenure::api {

using Timestamp = std::chrono::system_clock::time_point;

// An instant as whole seconds since the epoch plus microseconds: Kubernetes timestamps span the
// years 0000-9999, a Timestamp (nanoseconds in 64 bits) only 1677-2262. The server keeps
// timestamps in this form, so every year a client may send is stored exactly.
struct WideTime {
  int64_t seconds = 0;
  int32_t micros = 0;    // 0..999999
  int64_t year() const;  // in UTC
  auto operator<=>(const WideTime&) const = default;
};
// Any RFC 3339 date-time, as ParseTime reads it; nullopt when the text is not one.
std::optional<WideTime> ParseWideTime(std::string_view text);
// "2023-12-05T02:33:08.685777Z" (`micro`) or "2023-12-05T02:33:08Z"; years 0000-9999.
std::string FormatWideTime(WideTime t, bool micro);
// The Timestamp of `t`, clamped to [kEarliestTimestamp, kLatestTimestamp]: a year-9999 renewTime
// is far in the future for every comparison the library and the controller make, and adding
// durations of up to a century to a clamped value cannot overflow.
Timestamp ToTimestamp(WideTime t);
// 2162-04-11 and 1777-09-21: a century inside what a Timestamp can hold.
extern const Timestamp kLatestTimestamp;
extern const Timestamp kEarliestTimestamp;

// "2023-12-05T02:33:08.685777Z" (truncated, never rounded, to microseconds).
std::string FormatMicroTime(Timestamp t);
// "2024-01-01T00:00:00Z" (truncated to seconds).
std::string FormatTime(Timestamp t);
// Any RFC 3339 date-time: "2024-01-01T00:00:00Z", "...08.685Z", "...08.123456789+02:00".
// Returns nullopt when the text is not one. The result is truncated to microseconds and, outside
// the years 1677-2262, clamped (ToTimestamp).
std::optional<Timestamp> ParseTime(std::string_view text);
// Truncates to the precision of a MicroTime / Time.
Timestamp TruncateToMicros(Timestamp t);
Timestamp TruncateToSeconds(Timestamp t);

// kubectl's duration.HumanDuration: "0s", "45s", "5m12s", "3h4m", "2d3h", "10d", "2y3d",
// "<invalid>" for more than one second in the future.
std::string HumanDuration(std::chrono::nanoseconds d);

}  // namespace tenure::api
