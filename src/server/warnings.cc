// Warning headers: deprecation and unknown-field warnings, kube-apiserver's header form and limits.
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

// A header value: `299 - "<text>"`.
std::string Header(const std::string& text) { return "299 - " + Quoted(text); }

}  // namespace

std::string DeprecationWarning(const api::KindInfo& kind, std::string_view version, int minor) {
  for (const api::KindInfo::Deprecation& d : kind.deprecations) {
    if (d.version != version || minor < d.deprecated_minor) continue;
    std::string text = kind.api_version(version) + " " + std::string(kind.kind) +
                       " is deprecated in v1." + std::to_string(d.deprecated_minor) + "+";
    if (d.removed_minor != 0)
      text += ", unavailable in v1." + std::to_string(d.removed_minor) + "+";
    return text;
  }
  return {};
}

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
  size_t written = 0;
  for (const std::string& text : texts) {
    if (!seen.insert(text).second) continue;
    distinct.push_back(text);
    written += Header(text).size();
  }
  // kube's recorder: every header while they fit; once they do not, each text cut, and headers
  // added while what is written before them is under the limit.
  const bool truncating = written > kTotalLimit;
  std::vector<std::pair<std::string, std::string>> headers;
  written = 0;
  for (const std::string& text : distinct) {
    if (truncating && written >= kTotalLimit) break;
    std::string header = Header(truncating ? FirstCharacters(text, kTruncatedLength) : text);
    written += header.size();
    headers.emplace_back("Warning", std::move(header));
  }
  return headers;
}

}  // namespace tenure::server
