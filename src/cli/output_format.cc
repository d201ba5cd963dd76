// Terminal output: Painter (ANSI colour), TextTable (kubectl-like columns), Ago, PreciseDuration.
#include "cli/output_format.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tenure::cli {

Painter Painter::ForStdout() {
  return Painter(ShouldColor(isatty(1) == 1, std::getenv("NO_COLOR")));
}

bool Painter::ShouldColor(bool is_tty, const char* no_color) {
  return is_tty && (no_color == nullptr || *no_color == '\0');
}

std::string Painter::Paint(std::string_view text, Color color) const {
  if (!enabled_ || color == Color::kNone || text.empty()) return std::string(text);
  const char* code = "";
  switch (color) {
    case Color::kNone:
      break;
    case Color::kBold:
      code = "1";
      break;
    case Color::kDim:
      code = "2";
      break;
    case Color::kRed:
      code = "31";
      break;
    case Color::kGreen:
      code = "32";
      break;
    case Color::kYellow:
      code = "33";
      break;
    case Color::kCyan:
      code = "36";
      break;
  }
  return "\033[" + std::string(code) + "m" + std::string(text) + "\033[0m";
}

void TextTable::AddRow(std::vector<Cell> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::string TextTable::Render(const Painter& painter, std::string_view indent) const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].text.size());
  }
  std::string out;
  auto line = [&](auto cell_text, auto cell_color) {
    std::string text(indent);
    for (size_t c = 0; c < header_.size(); ++c) {
      const std::string& cell = cell_text(c);
      text += painter.Paint(cell, cell_color(c));
      if (c + 1 < header_.size()) text.append(width[c] - cell.size() + 3, ' ');
    }
    // Trailing blanks of empty last cells are noise (and break `cut`-style parsing).
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  line([&](size_t c) -> const std::string& { return header_[c]; },
       [](size_t) { return Color::kNone; });
  for (const auto& row : rows_) {
    line([&](size_t c) -> const std::string& { return row[c].text; },
         [&](size_t c) { return row[c].color; });
  }
  return out;
}

std::string Ago(std::optional<api::Timestamp> then, api::Timestamp now) {
  if (!then) return "<unknown>";
  return api::HumanDuration(now - *then);
}

std::string PreciseDuration(std::chrono::nanoseconds d) {
  using namespace std::chrono;
  if (d < nanoseconds(0)) return "-" + PreciseDuration(-d);
  char buf[32];
  double ms = duration<double, std::milli>(d).count();
  if (d < milliseconds(1)) {
    std::snprintf(buf, sizeof(buf), "%lldus",
                  static_cast<long long>(duration_cast<microseconds>(d).count()));
  } else if (d < milliseconds(100)) {
    std::snprintf(buf, sizeof(buf), "%.1fms", ms);
  } else if (d < seconds(1)) {
    std::snprintf(buf, sizeof(buf), "%.0fms", ms);
  } else if (d < minutes(1)) {
    std::snprintf(buf, sizeof(buf), "%.2fs", ms / 1000.0);
  } else {
    return api::HumanDuration(d);
  }
  return buf;
}

std::string TimeOfDay(api::Timestamp t) {
  using namespace std::chrono;
  auto since_epoch = duration_cast<milliseconds>(t.time_since_epoch()).count();
  time_t secs = static_cast<time_t>(since_epoch / 1000);
  long millis = static_cast<long>(since_epoch % 1000);
  struct tm local;
  localtime_r(&secs, &local);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02d:%02d:%02d.%03ld", local.tm_hour, local.tm_min, local.tm_sec,
                millis);
  return buf;
}

}  // namespace tenure::cli
