// Percent-encoding and query strings, as Kubernetes clients and servers use them.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tenure::api {

// Decodes %XX escapes (and '+' as space when `plus_is_space`); invalid escapes are kept as is.
std::string PercentDecode(std::string_view in, bool plus_is_space = false);
// Encodes everything except unreserved characters (RFC 3986).
std::string PercentEncode(std::string_view in);
// "a=1&b=x%20y" -> {a:1, b:"x y"}; repeated keys keep every value in order.
std::multimap<std::string, std::string> ParseQuery(std::string_view query);

}  // namespace tenure::api
