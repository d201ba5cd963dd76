// Go's %q of a string (strconv.Quote): quotes, backslashes and control characters escaped
// (\n, \t, \x01, \u0085), invalid UTF-8 bytes as \xNN, other UTF-8 kept. Internal to the
// project: kube-apiserver's messages (api/validation.h) and the log's text lines use it.
#pragma once

#include <string>
#include <string_view>

namespace tenure {

std::string GoQuote(std::string_view s);

}  // namespace tenure
