// GoQuote: Go's strconv.Quote (%q) of a string, for messages that must read as Go writes them
// (kube's field errors) and for the log's quoted values.
#include "core/go_quote.h"

#include <cstdint>
#include <cstdio>

namespace tenure {

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  char buf[16];
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (c < 0x20 || c == 0x7f) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence; invalid bytes print as \xNN like Go.
    size_t len = 0;
    uint32_t r = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      r = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      r = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      r = c & 0x07;
    }
    bool ok = len != 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) ok = false;
      r = (r << 6) | (cc & 0x3F);
    }
    if (ok) {
      static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      if (r < kMin[len] || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) ok = false;
    }
    if (!ok) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (r < 0xA0) {
      std::snprintf(buf, sizeof buf, "\\u%04x", r);
      out += buf;
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  out += '"';
  return out;
}

}  // namespace tenure
