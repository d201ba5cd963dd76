// Logging: the process-wide sink and level, the text and JSON line formats, and their sinks.
#include "tenure/log.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <ctime>
#include <mutex>

#include "core/go_quote.h"
#include "core/json_string.h"

namespace tenure {

namespace {

std::atomic<int> minimum_level{static_cast<int>(LogLevel::kInfo)};

// The sink: copied out under a mutex for each line, so a line goes to one sink whole even while
// another thread replaces it, and a sink being replaced lives until its last line is written.
std::mutex sink_mu;
std::shared_ptr<LogSink>& CurrentSink() {
  static auto* sink = new std::shared_ptr<LogSink>();  // never destroyed: logs during exit work
  return *sink;
}

std::shared_ptr<LogSink> DefaultSink() {
  static auto* sink = new std::shared_ptr<LogSink>(TextLogSink(stderr));
  return *sink;
}

// RFC 3339 in UTC with milliseconds: 2026-12-03T13:49:45.123Z.
void AppendTime(std::string& out, std::chrono::system_clock::time_point time) {
  auto since = time.time_since_epoch();
  auto seconds = std::chrono::floor<std::chrono::seconds>(since);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(since - seconds).count();
  std::time_t t = static_cast<std::time_t>(seconds.count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  out += buf;
}

bool NeedsQuotes(std::string_view value) {
  if (value.empty()) return true;
  return std::any_of(value.begin(), value.end(), [](unsigned char c) {
    return c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f;
  });
}

class FileSink : public LogSink {
 public:
  FileSink(std::FILE* out, bool json) : out_(out), json_(json) {}
  void Write(const LogRecord& record) override {
    std::string line = json_ ? FormatLogJson(record) : FormatLogText(record);
    line += '\n';
    std::lock_guard lock(mu_);
    std::fwrite(line.data(), 1, line.size(), out_);
    std::fflush(out_);
  }

 private:
  std::mutex mu_;
  std::FILE* out_;
  bool json_;
};

class NullSink : public LogSink {
 public:
  void Write(const LogRecord&) override {}
};

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

std::optional<LogLevel> ParseLogLevel(std::string_view name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "debug") return LogLevel::kDebug;
  if (lower == "info") return LogLevel::kInfo;
  if (lower == "warning" || lower == "warn") return LogLevel::kWarning;
  if (lower == "error") return LogLevel::kError;
  return std::nullopt;
}

std::shared_ptr<LogSink> TextLogSink(std::FILE* out) {
  return std::make_shared<FileSink>(out, false);
}
std::shared_ptr<LogSink> JsonLogSink(std::FILE* out) {
  return std::make_shared<FileSink>(out, true);
}
std::shared_ptr<LogSink> DiscardLogSink() { return std::make_shared<NullSink>(); }

void SetLogSink(std::shared_ptr<LogSink> sink) {
  std::lock_guard lock(sink_mu);
  CurrentSink() = std::move(sink);
}

void SetLogLevel(LogLevel minimum) { minimum_level.store(static_cast<int>(minimum)); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(minimum_level.load()); }
bool LogEnabled(LogLevel level) { return static_cast<int>(level) >= minimum_level.load(); }

void Log(LogLevel level, std::string_view component, std::string_view message,
         std::span<const LogField> fields) {
  if (!LogEnabled(level)) return;
  std::shared_ptr<LogSink> sink;
  {
    std::lock_guard lock(sink_mu);
    sink = CurrentSink();
  }
  if (!sink) sink = DefaultSink();
  sink->Write(LogRecord{std::chrono::system_clock::now(), level, component, message, fields});
}

void Log(LogLevel level, std::string_view component, std::string_view message,
         std::initializer_list<LogField> fields) {
  Log(level, component, message, std::span<const LogField>(fields.begin(), fields.size()));
}

std::string FormatLogText(const LogRecord& record) {
  std::string out;
  AppendTime(out, record.time);
  out += ' ';
  std::string_view name = LogLevelName(record.level);
  for (char c : name) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out += ' ';
  if (!record.component.empty()) {
    out += record.component;
    out += ": ";
  }
  out += record.message;
  for (const LogField& field : record.fields) {
    out += ' ';
    out += field.key;
    out += '=';
    if (NeedsQuotes(field.value)) {
      out += GoQuote(field.value);
    } else {
      out += field.value;
    }
  }
  return out;
}

std::string FormatLogJson(const LogRecord& record) {
  std::string out = "{\"time\":\"";
  AppendTime(out, record.time);
  out += "\",\"level\":";
  AppendJsonString(out, LogLevelName(record.level));
  out += ",\"component\":";
  AppendJsonString(out, record.component);
  out += ",\"msg\":";
  AppendJsonString(out, record.message);
  for (const LogField& field : record.fields) {
    out += ',';
    AppendJsonString(out, field.key);
    out += ':';
    AppendJsonString(out, field.value);
  }
  out += '}';
  return out;
}

}  // namespace tenure
