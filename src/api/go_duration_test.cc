// Tests of ParseGoDuration: what Go's time.ParseDuration accepts, and its error messages.
#include "api/go_duration.h"

#include <gtest/gtest.h>

namespace tenure::api {
namespace {

using namespace std::chrono_literals;

TEST(GoDurationTest, ReadsWhatGoReads) {
  EXPECT_EQ(*ParseGoDuration("0"), 0ns);
  EXPECT_EQ(*ParseGoDuration("-0"), 0ns);
  EXPECT_EQ(*ParseGoDuration("300ms"), 300ms);
  EXPECT_EQ(*ParseGoDuration("1.5s"), 1500ms);
  EXPECT_EQ(*ParseGoDuration(".5s"), 500ms);
  EXPECT_EQ(*ParseGoDuration("1.s"), 1s);
  EXPECT_EQ(*ParseGoDuration("1h2m3s4ms5us6ns"), 1h + 2min + 3s + 4ms + 5us + 6ns);
  EXPECT_EQ(*ParseGoDuration("2\xC2\xB5s"), 2us);
  EXPECT_EQ(*ParseGoDuration("+10s"), 10s);
  EXPECT_EQ(*ParseGoDuration("-1.25m"), -75s);
  EXPECT_EQ(*ParseGoDuration("0.000000001s"), 1ns);
  EXPECT_EQ(ParseGoDuration("9223372036854775807ns")->count(), INT64_MAX);
  EXPECT_EQ(ParseGoDuration("-9223372036854775808ns")->count(), INT64_MIN);
}

TEST(GoDurationTest, RefusesWhatGoRefusesWithItsMessages) {
  EXPECT_EQ(ParseGoDuration("").status().message(), "time: invalid duration \"\"");
  EXPECT_EQ(ParseGoDuration("abc").status().message(), "time: invalid duration \"abc\"");
  EXPECT_EQ(ParseGoDuration("10").status().message(), "time: missing unit in duration \"10\"");
  EXPECT_EQ(ParseGoDuration("5d").status().message(),
            "time: unknown unit \"d\" in duration \"5d\"");
  EXPECT_EQ(ParseGoDuration(".s").status().message(), "time: invalid duration \".s\"");
  EXPECT_EQ(ParseGoDuration("1s ").status().message(),
            "time: unknown unit \"s \" in duration \"1s \"");
  EXPECT_EQ(ParseGoDuration("9223372036854775808ns").status().reason(), Reason::kBadRequest);
  EXPECT_EQ(ParseGoDuration("3000000h").status().reason(), Reason::kBadRequest);
  EXPECT_EQ(ParseGoDuration("99999999999999999999999s").status().reason(), Reason::kBadRequest);
}

}  // namespace
}  // namespace tenure::api
