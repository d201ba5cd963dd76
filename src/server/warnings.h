// Warning headers as kube-apiserver sends them (RFC 7234 warn-code 299, agent "-"): the unknown
// fields of fieldValidation=Warn, each text once.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tenure::server {

// `unknown field "spec.foo"` for each path, in order, repeated paths once.
std::vector<std::string> UnknownFieldWarnings(const std::vector<std::string>& paths);

// ("Warning", `299 - "<text>"`) for each distinct text, quotes and backslashes escaped. When the
// headers exceed 4096 bytes in all, each text is cut to 256 characters and headers are added only
// while less than 4096 bytes came before them (kube's limits on what one response carries).
std::vector<std::pair<std::string, std::string>> WarningHeaders(
    const std::vector<std::string>& texts);

}  // namespace tenure::server
