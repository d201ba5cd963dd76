// ChooseProxy and NoProxyMatches: proxy-url, HTTPS_PROXY / HTTP_PROXY and NO_PROXY as client-go
// reads them.
#include "client/proxy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <sstream>

#include "api/codec.h"

namespace tenure::client {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Trim(const std::string& s) {
  size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

const char* Env(const GetEnv& getenv, const char* upper, const char* lower) {
  const char* value = getenv(upper);
  if (value == nullptr || *value == '\0') value = getenv(lower);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

// An IPv4 or IPv6 address as 16 bytes (IPv4 mapped), or nullopt.
std::optional<std::array<unsigned char, 16>> ParseIp(const std::string& text) {
  std::array<unsigned char, 16> out{};
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &v4, 4);
    return out;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    std::memcpy(out.data(), &v6, 16);
    return out;
  }
  return std::nullopt;
}

bool IsLoopback(const std::string& host) {
  if (Lower(host) == "localhost") return true;
  auto ip = ParseIp(host);
  if (!ip) return false;
  static const std::array<unsigned char, 16> v6_loopback = {0, 0, 0, 0, 0, 0, 0, 0,
                                                            0, 0, 0, 0, 0, 0, 0, 1};
  bool v4 = (*ip)[10] == 0xff && (*ip)[11] == 0xff &&
            std::all_of(ip->begin(), ip->begin() + 10, [](unsigned char b) { return b == 0; });
  return (v4 && (*ip)[12] == 127) || *ip == v6_loopback;
}

bool InCidr(const std::array<unsigned char, 16>& ip, const std::string& cidr) {
  size_t slash = cidr.find('/');
  auto net = ParseIp(cidr.substr(0, slash));
  if (!net) return false;
  std::string length = cidr.substr(slash + 1);
  // A prefix length that is not a number matches nothing (atoi's 0 would match everything).
  if (length.empty() || length.size() > 3 ||
      !std::all_of(length.begin(), length.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return false;
  }
  int bits = std::stoi(length);
  bool v4 = cidr.find(':') == std::string::npos;
  if (v4) bits += 96;
  if (bits < 0 || bits > 128) return false;
  for (int i = 0; i < bits; ++i) {
    int byte = i / 8, bit = 7 - i % 8;
    if (((ip[byte] >> bit) & 1) != (((*net)[byte] >> bit) & 1)) return false;
  }
  return true;
}

// "p%40ss" -> "p@ss": the user and password of a URL are percent-encoded.
std::optional<std::string> PercentDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      return std::nullopt;
    }
    out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

}  // namespace

bool NoProxyMatches(const std::string& list, const std::string& host_in, uint16_t port) {
  std::string host = Lower(host_in);
  auto ip = ParseIp(host);
  std::stringstream entries(list);
  std::string entry;
  while (std::getline(entries, entry, ',')) {
    entry = Lower(Trim(entry));
    if (entry.empty()) continue;
    if (entry == "*") return true;
    if (entry.find('/') != std::string::npos) {
      if (ip && InCidr(*ip, entry)) return true;
      continue;
    }
    // "host:port", "[v6]:port" (a bare IPv6 address has colons but no port).
    std::string name = entry;
    size_t colon = entry.rfind(':');
    bool bracketed = entry.front() == '[';
    if (colon != std::string::npos &&
        (bracketed ? colon > entry.find(']') : std::count(entry.begin(), entry.end(), ':') == 1)) {
      if (std::to_string(port) != entry.substr(colon + 1)) continue;
      name = entry.substr(0, colon);
    }
    if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
      name = name.substr(1, name.size() - 2);
    }
    if (name.rfind("*.", 0) == 0) name = name.substr(1);  // "*.example.com": as ".example.com"
    if (auto entry_ip = ParseIp(name)) {
      if (ip && *ip == *entry_ip) return true;
      continue;
    }
    if (name.front() == '.') {
      if (host.size() > name.size() &&
          host.compare(host.size() - name.size(), name.size(), name) == 0) {
        return true;
      }
      continue;
    }
    if (host == name) return true;
    std::string suffix = "." + name;
    if (host.size() > suffix.size() &&
        host.compare(host.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

Result<std::optional<Proxy>> ChooseProxy(const Endpoint& endpoint, const std::string& proxy_url,
                                         const GetEnv& getenv) {
  std::string url = proxy_url;
  std::string source = "proxy-url";
  if (url.empty()) {
    const char* upper = endpoint.tls.enabled ? "HTTPS_PROXY" : "HTTP_PROXY";
    const char* lower = endpoint.tls.enabled ? "https_proxy" : "http_proxy";
    const char* value = Env(getenv, upper, lower);
    if (value == nullptr || IsLoopback(endpoint.host)) return std::optional<Proxy>();
    if (const char* no_proxy = Env(getenv, "NO_PROXY", "no_proxy");
        no_proxy != nullptr && NoProxyMatches(no_proxy, endpoint.host, endpoint.port)) {
      return std::optional<Proxy>();
    }
    url = value;
    source = upper;
  }
  std::string rest = url;
  if (size_t scheme = rest.find("://"); scheme != std::string::npos) {
    std::string name = Lower(rest.substr(0, scheme));
    if (name != "http") {
      return Status::BadRequest(source + " \"" + url + "\": only http:// proxies are supported (" +
                                name + " is not)");
    }
    rest = rest.substr(scheme + 3);
  }
  rest = rest.substr(0, rest.find('/'));
  Proxy proxy;
  if (size_t at = rest.rfind('@'); at != std::string::npos) {
    auto credentials = PercentDecode(rest.substr(0, at));
    if (!credentials) {
      return Status::BadRequest(source + " \"" + url + "\": bad %-escape in the user or password");
    }
    proxy.authorization = "Basic " + api::Base64Encode(*credentials);
    rest = rest.substr(at + 1);
  }
  std::string port = "80";
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos)
      return Status::BadRequest(source + " \"" + url + "\": bad host");
    proxy.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
  } else if (size_t colon = rest.rfind(':'); colon != std::string::npos) {
    proxy.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  } else {
    proxy.host = rest;
  }
  char* end = nullptr;
  long number = std::strtol(port.c_str(), &end, 10);
  if (proxy.host.empty() || *end != '\0' || number <= 0 || number > 65535) {
    return Status::BadRequest(source + " \"" + url + "\": not a proxy URL (http://HOST:PORT)");
  }
  proxy.port = static_cast<uint16_t>(number);
  return std::optional<Proxy>(proxy);
}

}  // namespace tenure::client
