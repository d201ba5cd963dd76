// JsonScanner: checking and stepping over JSON values, decoding only the strings asked for, and
// building trees of them.
#include "api/json_scanner.h"

#include <locale.h>
#include <stdlib.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>
#include <vector>

#include "core/json_string.h"

namespace tenure::api {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

// The four hex digits of a \u escape at p, -1 when they are not.
int32_t Hex4(const char* p, const char* end) {
  if (end - p < 4) return -1;
  int32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    const int digit = HexValue(p[i]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

}  // namespace

char JsonScanner::Peek() {
  while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  return p_ < end_ ? *p_ : '\0';
}

bool JsonScanner::Consume(char c) {
  if (Peek() != c) return false;  // never '\0': it is not asked for
  ++p_;
  return true;
}

bool JsonScanner::String(std::string* out) {
  if (p_ >= end_ || *p_ != '"') return false;
  ++p_;
  if (out != nullptr) out->clear();
  const char* run = p_;  // the start of the characters not yet appended to *out
  const auto flush = [&] {
    if (out != nullptr) out->append(run, static_cast<size_t>(p_ - run));
  };
  while (p_ < end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      flush();
      ++p_;
      return true;
    }
    if (c < 0x20) return false;  // a control character must be escaped
    if (c < 0x80 && c != '\\') {
      ++p_;
      continue;
    }
    if (c >= 0x80) {
      const size_t n = Utf8Length(reinterpret_cast<const unsigned char*>(p_),
                                  reinterpret_cast<const unsigned char*>(end_));
      if (n == 0) return false;
      p_ += n;
      continue;
    }
    // An escape.
    flush();
    if (end_ - p_ < 2) return false;
    const char e = p_[1];
    p_ += 2;
    char plain = 0;
    switch (e) {
      case '"':
        plain = '"';
        break;
      case '\\':
        plain = '\\';
        break;
      case '/':
        plain = '/';
        break;
      case 'b':
        plain = '\b';
        break;
      case 'f':
        plain = '\f';
        break;
      case 'n':
        plain = '\n';
        break;
      case 'r':
        plain = '\r';
        break;
      case 't':
        plain = '\t';
        break;
      case 'u': {
        int32_t unit = Hex4(p_, end_);
        if (unit < 0) return false;
        p_ += 4;
        uint32_t code_point = static_cast<uint32_t>(unit);
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate first
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          // A high surrogate: its low half must follow.
          if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
          const int32_t low = Hex4(p_ + 2, end_);
          if (low < 0xDC00 || low > 0xDFFF) return false;
          p_ += 6;
          code_point = 0x10000 + ((static_cast<uint32_t>(unit) - 0xD800) << 10) +
                       (static_cast<uint32_t>(low) - 0xDC00);
        }
        if (out != nullptr) AppendUtf8(code_point, *out);
        break;
      }
      default:
        return false;
    }
    if (plain != 0 && out != nullptr) out->push_back(plain);
    run = p_;
  }
  return false;  // unterminated
}

bool JsonScanner::Literal(std::string_view word) {
  if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
    return false;
  }
  p_ += word.size();
  return true;
}

bool JsonScanner::Number() {
  const char* start = p_;
  if (p_ < end_ && *p_ == '-') ++p_;
  if (p_ >= end_) return false;
  // The decimal exponent of the number's leading digit, roughly: its integer digits, or minus the
  // zeros that start its fraction, plus its exponent.
  int64_t magnitude = 0;
  if (*p_ == '0') {
    ++p_;
  } else if (IsDigit(*p_)) {
    for (; p_ < end_ && IsDigit(*p_); ++p_) ++magnitude;
  } else {
    return false;
  }
  const auto digits = [&] {
    if (p_ >= end_ || !IsDigit(*p_)) return false;
    while (p_ < end_ && IsDigit(*p_)) ++p_;
    return true;
  };
  bool plain_integer = true;
  if (p_ < end_ && *p_ == '.') {
    ++p_;
    plain_integer = false;
    const char* fraction = p_;
    if (!digits()) return false;
    if (magnitude == 0) {
      while (fraction < p_ && *fraction == '0') ++fraction, --magnitude;
    }
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    ++p_;
    plain_integer = false;
    bool negative = false;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) negative = *p_++ == '-';
    const char* exponent = p_;
    if (!digits()) return false;
    int64_t value = 0;
    for (; exponent < p_; ++exponent)
      value = std::min<int64_t>(value * 10 + (*exponent - '0'), 1 << 30);
    magnitude += negative ? -value : value;
  }
  // nlohmann refuses a number that does not fit a double (it would be infinite); one too small
  // for a double is zero, and accepted.
  if (!plain_integer || p_ - start > 18) {
    double value = 0;
    if (std::from_chars(start, p_, value).ec == std::errc::result_out_of_range && magnitude > 0) {
      return false;
    }
  }
  return true;
}

bool JsonScanner::Scalar() {
  switch (Peek()) {
    case '"':
      return String(nullptr);
    case 't':
      return Literal("true");
    case 'f':
      return Literal("false");
    case 'n':
      return Literal("null");
    default:
      return p_ < end_ && (*p_ == '-' || IsDigit(*p_)) && Number();
  }
}

bool JsonScanner::SkipValue() {
  std::string open;  // the closing brackets of the containers entered, innermost last
  while (true) {
    // A value.
    const char c = Peek();
    if (c == '{' || c == '[') {
      ++p_;
      const char close = c == '{' ? '}' : ']';
      if (!Consume(close)) {
        open.push_back(close);
        if (close == '}' && !MemberKey()) return false;
        continue;  // its first value
      }
    } else if (!Scalar()) {
      return false;
    }
    // After a value: the next one in the innermost container, or that container's end.
    while (true) {
      if (open.empty()) return true;
      if (Consume(',')) {
        if (open.back() == '}' && !MemberKey()) return false;
        break;
      }
      if (!Consume(open.back())) return false;
      open.pop_back();
    }
  }
}

bool JsonScanner::NumberTree(nlohmann::json& out) {
  const char* start = p_;
  if (!Number()) return false;
  const std::string_view text(start, static_cast<size_t>(p_ - start));
  if (text.find_first_of(".eE") == std::string_view::npos) {
    // nlohmann: an integer is unsigned unless negative, and a double when it does not fit.
    if (text[0] == '-') {
      int64_t value = 0;
      if (std::from_chars(start, p_, value).ec == std::errc()) {
        out = value;
        return true;
      }
    } else {
      uint64_t value = 0;
      if (std::from_chars(start, p_, value).ec == std::errc()) {
        out = value;
        return true;
      }
    }
  }
  double value = 0;
  if (std::from_chars(start, p_, value).ec != std::errc()) {
    // Too small for a double (Number refused one too large): strtod's zero or subnormal, as
    // nlohmann's, in the "C" locale whatever the program's (the library runs in users'
    // programs; nlohmann reads the point as the locale's).
    static const locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", locale_t{});
    std::string terminated(text);
    value = strtod_l(terminated.c_str(), nullptr, c_locale);
  }
  out = value;
  return true;
}

bool JsonScanner::ScalarTree(nlohmann::json& out) {
  switch (Peek()) {
    case '"':
      out = std::string();
      return String(out.get_ptr<std::string*>());
    case 't':
      out = true;
      return Literal("true");
    case 'f':
      out = false;
      return Literal("false");
    case 'n':
      out = nullptr;
      return Literal("null");
    default:
      return p_ < end_ && (*p_ == '-' || IsDigit(*p_)) && NumberTree(out);
  }
}

bool JsonScanner::Tree(nlohmann::json& out) {
  using json = nlohmann::json;
  std::vector<json*> open;  // the containers entered, innermost last
  std::string key;
  // Where the next value goes: a member (a map's node, which stays put) or an array's last
  // element (the array grows only after that element is complete).
  json* slot = &out;
  const auto member = [&](json& object) {
    if (Peek() != '"' || !String(&key) || !Consume(':')) return false;
    slot = &(*object.get_ptr<json::object_t*>())[std::move(key)];  // the last value given wins
    return true;
  };
  while (true) {
    // A value.
    const char c = Peek();
    if (c == '{') {
      ++p_;
      *slot = json::object();
      if (!Consume('}')) {
        open.push_back(slot);
        if (!member(*slot)) return false;
        continue;
      }
    } else if (c == '[') {
      ++p_;
      *slot = json::array();
      if (!Consume(']')) {
        open.push_back(slot);
        slot = &slot->get_ptr<json::array_t*>()->emplace_back();
        continue;
      }
    } else if (!ScalarTree(*slot)) {
      return false;
    }
    // After a value: the next one in the innermost container, or that container's end.
    while (true) {
      if (open.empty()) return true;
      json& container = *open.back();
      const bool object = container.is_object();
      if (Consume(',')) {
        if (object) {
          if (!member(container)) return false;
        } else {
          slot = &container.get_ptr<json::array_t*>()->emplace_back();
        }
        break;
      }
      if (!Consume(object ? '}' : ']')) return false;
      open.pop_back();
    }
  }
}

}  // namespace tenure::api
