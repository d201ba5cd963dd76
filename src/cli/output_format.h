// Terminal output of the inspection commands and the demo: kubectl-like aligned tables, short
// relative durations and optional ANSI colour.
//
// Colour is decided once per stream: only when it is a terminal and NO_COLOR is unset or empty
// (https://no-color.org). Tables measure cells without their colour codes, so coloured and plain
// output align the same way.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/time.h"

namespace tenure::cli {

enum class Color { kNone, kBold, kDim, kRed, kGreen, kYellow, kCyan };

class Painter {
 public:
  explicit Painter(bool enabled) : enabled_(enabled) {}
  // For standard output: enabled when it is a TTY and NO_COLOR is unset or empty.
  static Painter ForStdout();
  // The rule above, for tests: `no_color` is getenv("NO_COLOR") (nullptr when unset).
  static bool ShouldColor(bool is_tty, const char* no_color);

  bool enabled() const { return enabled_; }
  // `text` wrapped in the colour's escape codes (unchanged when disabled or kNone).
  std::string Paint(std::string_view text, Color color) const;

 private:
  bool enabled_;
};

// Columns separated by three spaces like kubectl's; the last column is not padded.
class TextTable {
 public:
  struct Cell {
    std::string text;
    Color color = Color::kNone;
  };
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<Cell> row);
  size_t rows() const { return rows_.size(); }
  // Header and rows, one line each, every line ending in '\n'; `indent` prefixes each line.
  std::string Render(const Painter& painter, std::string_view indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<Cell>> rows_;
};

// How long ago `then` was, as kubectl prints ages ("5s", "3m12s", "2d"); "<unknown>" when unset.
std::string Ago(std::optional<api::Timestamp> then, api::Timestamp now);
// A measured duration with the precision it deserves: "850us", "12.3ms", "345ms", "3.21s",
// "1m5s" (kubectl's form from one minute on).
std::string PreciseDuration(std::chrono::nanoseconds d);
// Local wall time of day with milliseconds, "14:03:05.123", for timelines.
std::string TimeOfDay(api::Timestamp t);

}  // namespace tenure::cli
