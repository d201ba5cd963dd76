// Warning headers: unknown-field warnings and kube-apiserver's header form and limits.
#include "server/warnings.h"

#include <set>

#include "api/validation.h"

namespace tenure::server {

namespace {

constexpr size_t kTotalLimit = 4096;
constexpr size_t kTruncatedLength = 256;

// kube's makeQuotedString: only '"' and '\' are escaped.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The first `length` characters of UTF-8 `text` (kube counts runes).
std::string FirstCharacters(const std::string& text, size_t length) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && count++ == length) {
      return text.substr(0, i);
    }
  }
  return text;
}

size_t Characters(const std::string& text) {
  size_t count = 0;
  for (unsigned char c : text) count += (c & 0xC0) != 0x80;
  return count;
}

}  // namespace

std::vector<std::string> UnknownFieldWarnings(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& path : paths) {
    if (seen.insert(path).second) out.push_back("unknown field " + api::GoQuote(path));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> WarningHeaders(
    const std::vector<std::string>& texts) {
  std::vector<std::string> distinct;
  std::set<std::string> seen;
  size_t total = 0;
  for (const std::string& text : texts) {
    if (!seen.insert(text).second) continue;
    distinct.push_back(text);
    total += Characters(text);
  }
  std::vector<std::pair<std::string, std::string>> headers;
  size_t sent = 0;
  for (const std::string& text : distinct) {
    const std::string shown = total > kTotalLimit ? FirstCharacters(text, kTruncatedLength) : text;
    sent += Characters(shown);
    if (sent > kTotalLimit) break;  // even cut, the rest would not fit
    headers.emplace_back("Warning", "299 - " + Quoted(shown));
  }
  return headers;
}

}  // namespace tenure::server
