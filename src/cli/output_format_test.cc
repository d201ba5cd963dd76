// Tests of Painter, TextTable, Ago, PreciseDuration and TimeOfDay.
#include "cli/output_format.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

namespace tenure::cli {
namespace {

using namespace std::chrono_literals;

TEST(PainterTest, ColourOnlyOnATerminalWithoutNoColor) {
  EXPECT_TRUE(Painter::ShouldColor(true, nullptr));
  EXPECT_TRUE(Painter::ShouldColor(true, ""));  // no-color.org: set but empty does not count
  EXPECT_FALSE(Painter::ShouldColor(true, "1"));
  EXPECT_FALSE(Painter::ShouldColor(false, nullptr));
}

TEST(PainterTest, PaintsOnlyWhenEnabled) {
  EXPECT_EQ(Painter(true).Paint("ok", Color::kGreen), "\033[32mok\033[0m");
  EXPECT_EQ(Painter(false).Paint("ok", Color::kGreen), "ok");
  EXPECT_EQ(Painter(true).Paint("ok", Color::kNone), "ok");
  EXPECT_EQ(Painter(true).Paint("", Color::kRed), "");
}

TEST(TextTableTest, AlignsColumnsLikeKubectl) {
  TextTable table({"NAME", "HOLDER", "AGE"});
  table.AddRow({{"scheduler"}, {"node-1_abc"}, {"5s"}});
  table.AddRow({{"a"}, {"<none>"}, {"3m12s"}});
  EXPECT_EQ(table.Render(Painter(false)),
            "NAME        HOLDER       AGE\n"
            "scheduler   node-1_abc   5s\n"
            "a           <none>       3m12s\n");
}

TEST(TextTableTest, ColourDoesNotChangeTheAlignment) {
  TextTable table({"NAME", "HOLDER", "AGE"});
  table.AddRow({{"x"}, {"alpha", Color::kGreen}, {"1s"}});
  std::string plain = TextTable(table).Render(Painter(false));
  std::string coloured = table.Render(Painter(true));
  EXPECT_EQ(coloured, "NAME   HOLDER   AGE\nx      \033[32malpha\033[0m    1s\n");
  EXPECT_EQ(plain, "NAME   HOLDER   AGE\nx      alpha    1s\n");
}

TEST(TextTableTest, IndentsAndDropsTrailingBlanks) {
  TextTable table({"NAME", "NOTE"});
  table.AddRow({{"long-name"}, {""}});
  table.AddRow({{"b"}});  // short rows are padded with empty cells
  EXPECT_EQ(table.rows(), 2u);
  EXPECT_EQ(table.Render(Painter(false), "  "),
            "  NAME        NOTE\n"
            "  long-name\n"
            "  b\n");
}

TEST(AgoTest, KubectlStyleRelativeTimes) {
  api::Timestamp now = api::Timestamp{} + 1000000s;
  EXPECT_EQ(Ago(now - 5s, now), "5s");
  EXPECT_EQ(Ago(now - 192s, now), "3m12s");
  EXPECT_EQ(Ago(now - 48h, now), "2d");
  EXPECT_EQ(Ago(std::nullopt, now), "<unknown>");
}

TEST(PreciseDurationTest, PrecisionFollowsMagnitude) {
  EXPECT_EQ(PreciseDuration(850us), "850us");
  EXPECT_EQ(PreciseDuration(12300us), "12.3ms");
  EXPECT_EQ(PreciseDuration(345ms), "345ms");
  EXPECT_EQ(PreciseDuration(3210ms), "3.21s");
  EXPECT_EQ(PreciseDuration(65s), "65s");  // kubectl's form: minutes appear from 2m on
  EXPECT_EQ(PreciseDuration(3s), "3.00s");
  EXPECT_EQ(PreciseDuration(-2ms), "-2.0ms");
}

TEST(TimeOfDayTest, LocalTimeWithMilliseconds) {
  const char* old = getenv("TZ");
  std::string saved = old ? old : "";
  setenv("TZ", "UTC", 1);
  tzset();
  api::Timestamp t = api::Timestamp{} + 86400s * 20000 + 14h + 3min + 5s + 123456us;
  EXPECT_EQ(TimeOfDay(t), "14:03:05.123");
  if (old)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace tenure::cli
