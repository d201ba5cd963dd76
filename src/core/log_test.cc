// Logging: lines reach the sink set with their level, component and fields; the text and JSON
// forms quote what needs quoting; lines under the level are not written.
#include "tenure/log.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

namespace tenure {
namespace {

struct Captured {
  LogLevel level;
  std::string component, message;
  std::vector<LogField> fields;
};

class CapturingSink : public LogSink {
 public:
  void Write(const LogRecord& r) override {
    std::lock_guard lock(mu);
    lines.push_back({r.level, std::string(r.component), std::string(r.message),
                     std::vector<LogField>(r.fields.begin(), r.fields.end())});
  }
  std::mutex mu;
  std::vector<Captured> lines;
};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sink_ = std::make_shared<CapturingSink>();
    SetLogSink(sink_);
  }
  void TearDown() override {
    SetLogSink(nullptr);
    SetLogLevel(LogLevel::kInfo);
  }
  std::shared_ptr<CapturingSink> sink_;
};

TEST_F(LogTest, LinesReachTheSinkWithLevelComponentAndFields) {
  Log(LogLevel::kWarning, "elector", "renewal failed", {{"lease", "ns/a"}, {"error", "timeout"}});
  ASSERT_EQ(sink_->lines.size(), 1u);
  const Captured& line = sink_->lines[0];
  EXPECT_EQ(line.level, LogLevel::kWarning);
  EXPECT_EQ(line.component, "elector");
  EXPECT_EQ(line.message, "renewal failed");
  ASSERT_EQ(line.fields.size(), 2u);
  EXPECT_EQ(line.fields[0].key, "lease");
  EXPECT_EQ(line.fields[1].value, "timeout");
}

TEST_F(LogTest, LinesUnderTheLevelAreDropped) {
  Log(LogLevel::kDebug, "client", "hidden");
  SetLogLevel(LogLevel::kDebug);
  EXPECT_TRUE(LogEnabled(LogLevel::kDebug));
  Log(LogLevel::kDebug, "client", "shown");
  SetLogLevel(LogLevel::kError);
  Log(LogLevel::kWarning, "client", "hidden too");
  ASSERT_EQ(sink_->lines.size(), 1u);
  EXPECT_EQ(sink_->lines[0].message, "shown");
}

LogRecord Record(std::span<const LogField> fields) {
  // 2026-12-03T13:49:45.123Z
  auto time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796305785123));
  return LogRecord{time, LogLevel::kInfo, "elector", "became leader", fields};
}

TEST(LogFormatTest, TextQuotesValuesThatNeedIt) {
  std::vector<LogField> fields = {
      {"lease", "default/app"}, {"holder", "a b"}, {"note", "x=\"1\"\n"}, {"empty", ""}};
  EXPECT_EQ(FormatLogText(Record(fields)),
            "2026-12-03T13:49:45.123Z INFO elector: became leader lease=default/app holder=\"a b\" "
            "note=\"x=\\\"1\\\"\\n\" empty=\"\"");
}

TEST(LogFormatTest, JsonIsOneObjectWithEscapedStrings) {
  std::vector<LogField> fields = {{"lease", "default/app"}, {"bell", "\a\"\\"}};
  EXPECT_EQ(FormatLogJson(Record(fields)),
            "{\"time\":\"2026-12-03T13:49:45.123Z\",\"level\":\"info\",\"component\":\"elector\","
            "\"msg\":\"became leader\",\"lease\":\"default/app\",\"bell\":\"\\u0007\\\"\\\\\"}");
}

TEST(LogFormatTest, LevelsParseInAnyCase) {
  EXPECT_EQ(ParseLogLevel("DEBUG"), LogLevel::kDebug);
  EXPECT_EQ(ParseLogLevel("warn"), LogLevel::kWarning);
  EXPECT_EQ(ParseLogLevel("Error"), LogLevel::kError);
  EXPECT_EQ(ParseLogLevel("loud"), std::nullopt);
  EXPECT_EQ(LogLevelName(LogLevel::kWarning), "warning");
}

}  // namespace
}  // namespace tenure
