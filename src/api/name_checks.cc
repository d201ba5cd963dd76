// The string format checks of k8s.io/apimachinery/pkg/util/validation (Kubernetes 1.33 messages),
// written as hand matchers instead of regexes, and strict semantic versions (blang/semver).
#include <algorithm>
#include <string>

#include "api/validation.h"

namespace tenure::api {
namespace {

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kConfigMapKeyFmt = "[-._a-zA-Z0-9]+";
constexpr std::string_view kConfigMapKeyErrMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

std::string MaxLenError(size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    out += " (regex used for validation is '";
    out += fmt;
    out += "')";
    return out;
  }
  out += " (e.g. ";
  bool first = true;
  for (auto e : examples) {
    if (!first) out += " or ";
    first = false;
    out += '\'';
    out += e;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool MatchesDns1123Label(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesDns1123Subdomain(std::string_view s) {
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    if (!MatchesDns1123Label(s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

void HasChDirPrefix(std::string_view value, std::vector<std::string>& errs) {
  if (value == ".") {
    errs.emplace_back("must not be '.'");
  } else if (value == "..") {
    errs.emplace_back("must not be '..'");
  } else if (value.substr(0, 2) == "..") {
    errs.emplace_back("must not start with '..'");
  }
}

}  // namespace

std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!MatchesDns1123Label(value)) {
    if (MatchesDns1123Subdomain(value)) {
      errs.emplace_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(MaxLenError(253));
  if (!MatchesDns1123Subdomain(value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name;
  const size_t slashes = static_cast<size_t>(std::count(value.begin(), value.end(), '/'));
  if (slashes == 0) {
    name = value;
  } else if (slashes == 1) {
    const size_t slash = value.find('/');
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      for (auto& msg : IsDNS1123Subdomain(prefix)) errs.push_back("prefix part " + msg);
    }
  } else {
    errs.push_back(
        "a qualified name " +
        RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenError(63));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> IsConfigMapKey(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(MaxLenError(253));
  bool matches = !value.empty();
  for (char c : value) {
    if (!IsAlnum(c) && c != '-' && c != '.' && c != '_') {
      matches = false;
      break;
    }
  }
  if (!matches) {
    errs.push_back(
        RegexError(kConfigMapKeyErrMsg, kConfigMapKeyFmt, {"key.name", "KEY_NAME", "key-name"}));
  }
  HasChDirPrefix(value, errs);
  return errs;
}

std::vector<std::string> IsValidPathSegmentName(std::string_view value) {
  if (value == ".") return {"may not be '.'"};
  if (value == "..") return {"may not be '..'"};
  std::vector<std::string> errs;
  if (value.find('/') != std::string_view::npos) errs.emplace_back("may not contain '/'");
  if (value.find('%') != std::string_view::npos) errs.emplace_back("may not contain '%'");
  return errs;
}

// ---- semver ----

namespace {

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool AllAlnumHyphen(std::string_view s) {
  for (char c : s) {
    if (!IsAlnum(c) && c != '-') return false;
  }
  return true;
}

bool ParseNumber(std::string_view s, uint64_t& out) {
  if (s.empty() || !AllDigits(s)) return false;
  if (s.size() > 1 && s[0] == '0') return false;  // leading zeros
  uint64_t v = 0;
  for (char c : s) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

int ComparePre(std::string_view a, std::string_view b) {
  const bool an = AllDigits(a), bn = AllDigits(b);
  if (an && bn) {
    uint64_t x = 0, y = 0;
    ParseNumber(a, x);
    ParseNumber(b, y);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (an) return -1;
  if (bn) return 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

std::optional<SemVer> ParseSemVer(std::string_view s) {
  if (s.empty()) return std::nullopt;
  // major.minor.(patch+pre+build)
  const size_t d1 = s.find('.');
  if (d1 == std::string_view::npos) return std::nullopt;
  const size_t d2 = s.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return std::nullopt;
  SemVer v;
  if (!ParseNumber(s.substr(0, d1), v.major)) return std::nullopt;
  if (!ParseNumber(s.substr(d1 + 1, d2 - d1 - 1), v.minor)) return std::nullopt;
  std::string_view rest = s.substr(d2 + 1);
  size_t pre_index = rest.find('-');
  const size_t build_index = rest.find('+');
  size_t sub = rest.size();
  if (pre_index != std::string_view::npos && build_index == std::string_view::npos) {
    sub = pre_index;
  } else if (pre_index == std::string_view::npos && build_index != std::string_view::npos) {
    sub = build_index;
  } else if (pre_index != std::string_view::npos && build_index != std::string_view::npos) {
    if (build_index < pre_index) {
      sub = build_index;
      pre_index = std::string_view::npos;
    } else {
      sub = pre_index;
    }
  }
  if (!ParseNumber(rest.substr(0, sub), v.patch)) return std::nullopt;
  if (pre_index != std::string_view::npos) {
    const size_t end = build_index == std::string_view::npos ? rest.size() : build_index;
    for (auto part : Split(rest.substr(pre_index + 1, end - pre_index - 1), '.')) {
      if (part.empty()) return std::nullopt;
      if (AllDigits(part)) {
        uint64_t unused;
        if (!ParseNumber(part, unused)) return std::nullopt;
      } else if (!AllAlnumHyphen(part)) {
        return std::nullopt;
      }
      v.pre.emplace_back(part);
    }
  }
  if (build_index != std::string_view::npos) {
    for (auto part : Split(rest.substr(build_index + 1), '.')) {
      if (part.empty() || !AllAlnumHyphen(part)) return std::nullopt;
      v.build.emplace_back(part);
    }
  }
  return v;
}

int SemVer::Compare(const SemVer& o) const {
  if (major != o.major) return major < o.major ? -1 : 1;
  if (minor != o.minor) return minor < o.minor ? -1 : 1;
  if (patch != o.patch) return patch < o.patch ? -1 : 1;
  if (pre.empty() && o.pre.empty()) return 0;
  if (pre.empty()) return 1;
  if (o.pre.empty()) return -1;
  size_t i = 0;
  for (; i < pre.size() && i < o.pre.size(); ++i) {
    const int c = ComparePre(pre[i], o.pre[i]);
    if (c != 0) return c;
  }
  if (i == pre.size() && i == o.pre.size()) return 0;
  return i == pre.size() ? -1 : 1;
}

}  // namespace tenure::api
