// Go's time.ParseDuration: the `timeout` query parameter of Kubernetes requests.
#include "api/go_duration.h"

#include <cstdint>
#include <limits>
#include <string>

namespace tenure::api {
namespace {

// Nanoseconds per unit, or 0 for an unknown unit.
uint64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;  // µs (two forms)
  if (unit == "ms") return 1000000;
  if (unit == "s") return 1000000000;
  if (unit == "m") return 60ULL * 1000000000;
  if (unit == "h") return 3600ULL * 1000000000;
  return 0;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  auto invalid = [&] { return Status::BadRequest("time: invalid duration " + quoted); };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return invalid();
  // The total in nanoseconds; Go allows up to 2^63 for a negative value, 2^63 - 1 otherwise.
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
  uint64_t total = 0;
  while (!s.empty()) {
    // The whole part, then an optional fraction; at least one digit in all.
    uint64_t whole = 0;
    size_t digits = 0;
    bool whole_overflow = false;
    while (digits < s.size() && IsDigit(s[digits])) {
      if (whole > (std::numeric_limits<uint64_t>::max() - 9) / 10) whole_overflow = true;
      whole = whole * 10 + static_cast<uint64_t>(s[digits] - '0');
      ++digits;
    }
    s.remove_prefix(digits);
    // The fraction as a value scaled by 10^fraction_digits (digits beyond 18 are dropped).
    uint64_t fraction = 0, scale = 1;
    size_t fraction_digits = 0;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      while (fraction_digits < s.size() && IsDigit(s[fraction_digits])) {
        if (scale <= 100000000000000000ULL) {
          fraction = fraction * 10 + static_cast<uint64_t>(s[fraction_digits] - '0');
          scale *= 10;
        }
        ++fraction_digits;
      }
      s.remove_prefix(fraction_digits);
    }
    if (digits == 0 && fraction_digits == 0) return invalid();
    size_t unit_length = 0;
    while (unit_length < s.size() && s[unit_length] != '.' && !IsDigit(s[unit_length])) {
      ++unit_length;
    }
    if (unit_length == 0) {
      return Status::BadRequest("time: missing unit in duration " + quoted);
    }
    uint64_t unit = UnitNanos(s.substr(0, unit_length));
    if (unit == 0) {
      return Status::BadRequest("time: unknown unit \"" + std::string(s.substr(0, unit_length)) +
                                "\" in duration " + quoted);
    }
    s.remove_prefix(unit_length);
    if (whole_overflow || whole > limit / unit) return invalid();  // Go: out of range, same message
    uint64_t piece = whole * unit;
    // unit <= 3.6e12 and fraction < scale <= 1e18: the product fits in 128 bits.
    piece += static_cast<uint64_t>(static_cast<unsigned __int128>(fraction) * unit / scale);
    if (piece > limit || total > limit - piece) return invalid();  // Go: out of range, same message
    total += piece;
  }
  if (negative) {
    return std::chrono::nanoseconds(total == limit ? std::numeric_limits<int64_t>::min()
                                                   : -static_cast<int64_t>(total));
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

}  // namespace tenure::api
