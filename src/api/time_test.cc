// Tests of Kubernetes timestamps: MicroTime format, RFC 3339 parsing, wide years, HumanDuration.
#include "api/time.h"

#include <gtest/gtest.h>

namespace tenure::api {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(TimeTest, MicroTimeHasSixDigitsInUtc) {
  auto t = ParseTime("2023-12-05T02:33:08.685777Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatMicroTime(*t), "2023-12-05T02:33:08.685777Z");
  EXPECT_EQ(FormatTime(*t), "2023-12-05T02:33:08Z");
  EXPECT_EQ(FormatMicroTime(*ParseTime("2024-01-01T00:00:00Z")), "2024-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatMicroTime(*ParseTime("2024-01-01T00:00:00.5Z")), "2024-01-01T00:00:00.500000Z");
}

TEST(TimeTest, ParsesOffsetsAndTruncatesNanoseconds) {
  EXPECT_EQ(FormatMicroTime(*ParseTime("2024-01-01T02:30:00.123456789+02:00")),
            "2024-01-01T00:30:00.123456Z");
  EXPECT_EQ(FormatTime(*ParseTime("2023-12-31T23:00:00-01:30")), "2024-01-01T00:30:00Z");
  EXPECT_EQ(FormatTime(*ParseTime("1969-12-31T23:59:59.9Z")), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatMicroTime(*ParseTime("1969-12-31T23:59:59.9Z")), "1969-12-31T23:59:59.900000Z");
}

TEST(TimeTest, EpochAndLeapDays) {
  EXPECT_EQ(ParseTime("1970-01-01T00:00:00Z")->time_since_epoch().count(), 0);
  EXPECT_EQ(FormatTime(*ParseTime("2024-02-29T12:00:00Z")), "2024-02-29T12:00:00Z");
  EXPECT_FALSE(ParseTime("2023-02-29T12:00:00Z"));
}

TEST(TimeTest, RejectsNonRfc3339) {
  for (const char* bad :
       {"", "2024-01-01", "2024-01-01T00:00:00", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z",
        "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+0200", "2024-01-01T00:00:00Zjunk",
        "yesterday", "2024-01-01 00:00:00Z"}) {
    EXPECT_FALSE(ParseTime(bad)) << bad;
  }
}

TEST(TimeTest, TruncationIsFloorForNegativeTimes) {
  const Timestamp t(nanoseconds(-1));
  EXPECT_EQ(FormatMicroTime(t), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatTime(t), "1969-12-31T23:59:59Z");
  EXPECT_EQ(TruncateToMicros(Timestamp(nanoseconds(1999))).time_since_epoch(), microseconds(1));
}

// Finding: renewTime 9999-12-31 was stored as 1816-03-30 (a Timestamp wraps outside
// 1677-2262). Wide times keep every year 0000-9999 exactly; Timestamps clamp instead of wrapping.
TEST(TimeTest, WideTimesKeepEveryYearKubernetesAllows) {
  for (const char* text :
       {"0000-01-01T00:00:00.000000Z", "0001-02-28T12:00:00.000001Z", "1500-06-15T08:30:00.250000Z",
        "1677-09-21T00:12:43.145224Z", "2262-04-11T23:47:16.854775Z", "2300-01-01T00:00:00.000000Z",
        "9999-12-31T23:59:59.999999Z"}) {
    auto t = ParseWideTime(text);
    ASSERT_TRUE(t) << text;
    EXPECT_EQ(FormatWideTime(*t, true), text);
  }
  EXPECT_EQ(FormatWideTime(*ParseWideTime("9999-12-31T23:59:59.5+01:00"), false),
            "9999-12-31T22:59:59Z");
  EXPECT_EQ(ParseWideTime("0000-01-01T00:30:00+01:00")->year(), -1);
  EXPECT_EQ(ParseWideTime("9999-12-31T23:30:00-01:00")->year(), 10000);
  EXPECT_LT(*ParseWideTime("1500-01-01T00:00:00Z"), *ParseWideTime("1969-12-31T23:59:59Z"));

  EXPECT_EQ(*ParseTime("9999-12-31T23:59:59Z"), kLatestTimestamp);
  EXPECT_EQ(*ParseTime("0000-01-01T00:00:00Z"), kEarliestTimestamp);
  // A century can be added to (or taken from) a clamped time without overflow.
  EXPECT_GT(kLatestTimestamp + std::chrono::hours(24 * 36500), kLatestTimestamp);
  EXPECT_LT(kEarliestTimestamp - std::chrono::hours(24 * 36500), kEarliestTimestamp);
  EXPECT_EQ(*ParseTime("2300-01-01T00:00:00Z"), kLatestTimestamp);
  EXPECT_GT(*ParseTime("2161-01-01T00:00:00Z"), *ParseTime("2100-01-01T00:00:00Z"));
  EXPECT_LT(*ParseTime("1700-01-01T00:00:00Z"), *ParseTime("1800-01-01T00:00:00Z"));
  EXPECT_EQ(FormatMicroTime(*ParseTime("2024-01-01T00:00:00.5Z")),
            FormatWideTime(*ParseWideTime("2024-01-01T00:00:00.5Z"), true));
}

// Every instant of the years 0000-9999 is written in the one form ParseWideTime reads back.
TEST(TimeTest, FormatAndParseAgreeAcrossTheYears) {
  const int64_t first = ParseWideTime("0000-01-01T00:00:00Z")->seconds;
  const int64_t last = ParseWideTime("9999-12-31T23:59:59Z")->seconds;
  uint64_t state = 42;
  for (int i = 0; i < 100000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    WideTime t;
    t.seconds =
        first + static_cast<int64_t>((state >> 11) % static_cast<uint64_t>(last - first + 1));
    t.micros = static_cast<int32_t>((state >> 3) % 1000000);
    const std::string micro = FormatWideTime(t, true);
    ASSERT_EQ(micro.size(), 27u) << micro;
    ASSERT_EQ(ParseWideTime(micro), t) << micro;
    const std::string whole = FormatWideTime(t, false);
    ASSERT_EQ(whole, micro.substr(0, 19) + "Z");
  }
}

TEST(HumanDurationTest, MatchesKubectl) {
  EXPECT_EQ(HumanDuration(seconds(-5)), "<invalid>");
  EXPECT_EQ(HumanDuration(nanoseconds(-1500000000)), "0s");
  EXPECT_EQ(HumanDuration(seconds(0)), "0s");
  EXPECT_EQ(HumanDuration(seconds(45)), "45s");
  EXPECT_EQ(HumanDuration(seconds(119)), "119s");
  EXPECT_EQ(HumanDuration(seconds(120)), "2m");
  EXPECT_EQ(HumanDuration(minutes(5) + seconds(12)), "5m12s");
  EXPECT_EQ(HumanDuration(minutes(10) + seconds(12)), "10m");
  EXPECT_EQ(HumanDuration(minutes(179)), "179m");
  EXPECT_EQ(HumanDuration(hours(3) + minutes(4)), "3h4m");
  EXPECT_EQ(HumanDuration(hours(3)), "3h");
  EXPECT_EQ(HumanDuration(hours(8) + minutes(30)), "8h");
  EXPECT_EQ(HumanDuration(hours(47)), "47h");
  EXPECT_EQ(HumanDuration(hours(51)), "2d3h");
  EXPECT_EQ(HumanDuration(hours(72)), "3d");
  EXPECT_EQ(HumanDuration(hours(24 * 10 + 5)), "10d");
  EXPECT_EQ(HumanDuration(hours(24 * (365 * 2 + 3))), "2y3d");
  EXPECT_EQ(HumanDuration(hours(24 * 365 * 3)), "3y");
  EXPECT_EQ(HumanDuration(hours(24 * 365 * 9)), "9y");
}

}  // namespace
}  // namespace tenure::api
