// Kubernetes timestamps (Time, MicroTime, WideTime): RFC 3339 parse and format; HumanDuration.
#include "api/time.h"

#include <cstdint>
#include <cstdio>

namespace tenure::api {
namespace {

using std::chrono::duration_cast;
using std::chrono::microseconds;
using std::chrono::seconds;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Writes the `n` low decimal digits of v at p.
void PutDigits(char* p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, v /= 10) p[i] = static_cast<char>('0' + v % 10);
}

// Writes "YYYY-MM-DDTHH:MM:SS" of whole seconds since the epoch into buf (20 bytes with NUL).
// By hand for the years 0000-9999 (every timestamp of every write goes through here).
void FormatSeconds(int64_t secs, char* buf, size_t size) {
  const int64_t days = FloorDiv(secs, 86400);
  const int64_t rem = secs - days * 86400;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  if (y < 0 || y > 9999 || size < 20) {
    std::snprintf(buf, size, "%04lld-%02u-%02uT%02d:%02d:%02d", static_cast<long long>(y), m, d,
                  static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60),
                  static_cast<int>(rem % 60));
    return;
  }
  PutDigits(buf, static_cast<uint64_t>(y), 4);
  buf[4] = '-';
  PutDigits(buf + 5, m, 2);
  buf[7] = '-';
  PutDigits(buf + 8, d, 2);
  buf[10] = 'T';
  PutDigits(buf + 11, static_cast<uint64_t>(rem / 3600), 2);
  buf[13] = ':';
  PutDigits(buf + 14, static_cast<uint64_t>(rem / 60 % 60), 2);
  buf[16] = ':';
  PutDigits(buf + 17, static_cast<uint64_t>(rem % 60), 2);
  buf[19] = '\0';
}

bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

}  // namespace

Timestamp TruncateToMicros(Timestamp t) {
  const auto us = duration_cast<microseconds>(t.time_since_epoch());
  auto floored = us;
  if (duration_cast<Timestamp::duration>(us) > t.time_since_epoch()) floored -= microseconds(1);
  return Timestamp(duration_cast<Timestamp::duration>(floored));
}

Timestamp TruncateToSeconds(Timestamp t) {
  const auto s = duration_cast<seconds>(t.time_since_epoch());
  auto floored = s;
  if (duration_cast<Timestamp::duration>(s) > t.time_since_epoch()) floored -= seconds(1);
  return Timestamp(duration_cast<Timestamp::duration>(floored));
}

namespace {
WideTime ToWide(Timestamp t) {
  const int64_t us = duration_cast<microseconds>(TruncateToMicros(t).time_since_epoch()).count();
  const int64_t secs = FloorDiv(us, 1000000);
  return WideTime{secs, static_cast<int32_t>(us - secs * 1000000)};
}
}  // namespace

std::string FormatMicroTime(Timestamp t) { return FormatWideTime(ToWide(t), true); }

std::string FormatTime(Timestamp t) { return FormatWideTime(ToWide(t), false); }

std::optional<WideTime> ParseWideTime(std::string_view s) {
  int year, month, day, hour, minute, second;
  if (!Digits(s, 0, 4, year) || s.size() < 19 || s[4] != '-' || !Digits(s, 5, 2, month) ||
      s[7] != '-' || !Digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't') ||
      !Digits(s, 11, 2, hour) || s[13] != ':' || !Digits(s, 14, 2, minute) || s[16] != ':' ||
      !Digits(s, 17, 2, second)) {
    return std::nullopt;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return std::nullopt;
  const int mdays = kDays[month - 1] + (month == 2 && IsLeap(year) ? 1 : 0);
  if (day > mdays || hour > 23 || minute > 59 || second > 59) return std::nullopt;
  size_t pos = 19;
  int32_t micros = 0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (size_t i = digits; i < 6; ++i) micros *= 10;
  }
  if (pos >= s.size()) return std::nullopt;
  int64_t offset = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (!Digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const int64_t secs =
      DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
      hour * 3600 + minute * 60 + second - offset;
  return WideTime{secs, micros};
}

int64_t WideTime::year() const {
  int64_t y;
  unsigned m, d;
  CivilFromDays(FloorDiv(seconds, 86400), y, m, d);
  return y;
}

std::string FormatWideTime(WideTime t, bool micro) {
  char buf[64];
  FormatSeconds(t.seconds, buf, sizeof buf);
  std::string out(buf);
  if (micro) {
    char digits[7];
    digits[0] = '.';
    PutDigits(digits + 1, static_cast<uint64_t>(t.micros % 1000000), 6);
    out.append(digits, sizeof digits);
  }
  out += 'Z';
  return out;
}

namespace {
constexpr auto kCentury = std::chrono::hours(24 * 36525);
constexpr int64_t kClampSeconds =
    std::chrono::duration_cast<seconds>(Timestamp::duration::max() - kCentury).count();
}  // namespace

const Timestamp kLatestTimestamp{seconds(kClampSeconds)};
const Timestamp kEarliestTimestamp{seconds(-kClampSeconds)};

Timestamp ToTimestamp(WideTime t) {
  if (t.seconds >= kClampSeconds) return kLatestTimestamp;
  if (t.seconds <= -kClampSeconds) return kEarliestTimestamp;
  return Timestamp(
      duration_cast<Timestamp::duration>(microseconds(t.seconds * 1000000 + t.micros)));
}

std::optional<Timestamp> ParseTime(std::string_view s) {
  auto wide = ParseWideTime(s);
  if (!wide) return std::nullopt;
  return ToTimestamp(*wide);
}

namespace {
// "5m12s" or, when the minor part is zero, "5m".
std::string Units(int64_t major, char major_unit, int64_t minor = 0, char minor_unit = 0) {
  std::string out = std::to_string(major) + major_unit;
  if (minor != 0) out += std::to_string(minor) + minor_unit;
  return out;
}
}  // namespace

std::string HumanDuration(std::chrono::nanoseconds d) {
  const int64_t seconds =
      d.count() / 1000000000;  // truncates toward zero, as Go's int(d.Seconds())
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return Units(seconds, 's');
  const int64_t minutes = seconds / 60;
  if (minutes < 10) return Units(minutes, 'm', seconds % 60, 's');
  if (minutes < 60 * 3) return Units(minutes, 'm');
  const int64_t hours = seconds / 3600;
  if (hours < 8) return Units(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return Units(hours, 'h');
  const int64_t days = hours / 24;
  if (hours < 24 * 8) return Units(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return Units(days, 'd');
  if (hours < 24 * 365 * 8) return Units(days / 365, 'y', days % 365, 'd');
  return Units(days / 365, 'y');
}

}  // namespace tenure::api
