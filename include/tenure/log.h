// Logging: where the library's log lines go. Every component of the library (elector, locks,
// client, candidate registrar, Event recorder, credential plugins) logs through this one sink and
// never writes to stdout or stderr itself.
//
// A line is a level, a component ("elector", "client", ...), a message and key/value fields.
// The default sink writes text lines with a UTC timestamp and the level to stderr:
//   2026-12-03T13:49:45.123Z INFO elector: became leader election="Lease default/my-app"
//   identity=pod-1 fencing_token=42
// Replace it with SetLogSink (your own sink, JsonLogSink, or DiscardLogSink). Lines below the
// level set with SetLogLevel (default Info) never reach the sink.
//
// Threads: every function here may be called from any thread. A sink's Write is called from
// the library's threads, possibly concurrently; the sinks here serialize their writes. Changing
// the sink while lines are written is safe: a line goes either to the old or to the new sink,
// so a sink that was replaced may still receive a Write that began before SetLogSink returned:
// keep what it writes to alive (the library holds a reference to the sink while it writes).
#pragma once

#include <chrono>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tenure {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// "debug", "info", "warning", "error".
std::string_view LogLevelName(LogLevel level);
// The level named by `name` (any case; "warn" too), nullopt when none is.
std::optional<LogLevel> ParseLogLevel(std::string_view name);

struct LogField {
  std::string key;
  std::string value;
};

struct LogRecord {
  std::chrono::system_clock::time_point time;
  LogLevel level = LogLevel::kInfo;
  std::string_view component;
  std::string_view message;
  std::span<const LogField> fields;
};

class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Write(const LogRecord& record) = 0;
};

// Text lines (the default): `TIME LEVEL component: message key=value ...`; a value with spaces,
// quotes, `=` or control characters is quoted with Go's escapes.
std::shared_ptr<LogSink> TextLogSink(std::FILE* out = stderr);
// One JSON object per line: {"time":..., "level":..., "component":..., "msg":..., key: value...}.
std::shared_ptr<LogSink> JsonLogSink(std::FILE* out = stderr);
// Drops every line.
std::shared_ptr<LogSink> DiscardLogSink();

// The process-wide sink (nullptr: the default TextLogSink on stderr) and minimum level.
void SetLogSink(std::shared_ptr<LogSink> sink);
void SetLogLevel(LogLevel minimum);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);

// Sends one line to the sink when `level` is enabled.
void Log(LogLevel level, std::string_view component, std::string_view message,
         std::initializer_list<LogField> fields = {});
void Log(LogLevel level, std::string_view component, std::string_view message,
         std::span<const LogField> fields);

// The text and JSON forms of one record, as the sinks above write them (without the newline).
std::string FormatLogText(const LogRecord& record);
std::string FormatLogJson(const LogRecord& record);

}  // namespace tenure
