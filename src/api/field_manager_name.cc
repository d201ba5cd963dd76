// ValidateFieldManager and PrintablePrefix: the characters a field manager's name may have.
#include "api/field_manager_name.h"

#include <cstdio>

namespace tenure::api {
namespace {

// Decodes one UTF-8 rune at `i` (U+FFFD and one byte for an invalid sequence).
char32_t NextRune(std::string_view s, size_t& i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t r = n == 1 ? c : (c & (0x7f >> n));
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    r = (r << 6) | (b(i + k) & 0x3f);
  }
  i += n;
  return r;
}

// Go's unicode.IsPrint for the characters managers are named with: graphic characters and the
// ASCII space; controls, other spaces, surrogates and invalid bytes are not.
bool IsPrint(char32_t r) {
  if (r < 0x20 || (r >= 0x7f && r < 0xa0)) return false;
  if (r == 0xFFFD) return true;
  if (r == 0xad || (r >= 0x2000 && r <= 0x200f) || (r >= 0x2028 && r <= 0x202f) ||
      (r >= 0x205f && r <= 0x206f) || r == 0x3000 || r == 0xfeff || (r >= 0xfff9 && r <= 0xfffb)) {
    return false;
  }
  return !(r >= 0xd800 && r <= 0xdfff) && r <= 0x10ffff;
}

std::string RuneText(char32_t r) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(r));
  return buf;
}

}  // namespace

FieldErrors ValidateFieldManager(std::string_view manager, const std::string& path) {
  FieldErrors errs;
  if (manager.size() > kFieldManagerMaxLength)
    errs.push_back(TooLong(path, kFieldManagerMaxLength));
  for (size_t i = 0; i < manager.size();) {
    const size_t at = i;
    const char32_t r = NextRune(manager, i);
    if (!IsPrint(r)) {
      errs.push_back(Invalid(
          path, manager,
          "invalid character " + RuneText(r) + " (at position " + std::to_string(at) + ")"));
    }
  }
  return errs;
}

std::string PrintablePrefix(std::string_view text, size_t max_bytes) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t start = i;
    const char32_t r = NextRune(text, i);
    if (!IsPrint(r)) continue;
    const std::string_view bytes =
        r == 0xFFFD && i - start == 1 ? "\xEF\xBF\xBD" : text.substr(start, i - start);
    if (out.size() + bytes.size() > max_bytes) break;
    out += bytes;
  }
  return out;
}

}  // namespace tenure::api
