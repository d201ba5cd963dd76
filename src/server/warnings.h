// Warning headers as kube-apiserver sends them (RFC 7234 warn-code 299, agent "-"): deprecated
// API versions, the unknown fields of fieldValidation=Warn, each text once.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/kinds.h"

namespace tenure::server {

// kube-apiserver's warning on every request to a deprecated version once the emulated release
// `minor` (1.<minor>) has reached its deprecation: "coordination.k8s.io/v1alpha2 LeaseCandidate
// is deprecated in v1.35+, unavailable in v1.38+". Empty otherwise.
std::string DeprecationWarning(const api::KindInfo& kind, std::string_view version, int minor);

// `unknown field "spec.foo"` for each path, in order, repeated paths once.
std::vector<std::string> UnknownFieldWarnings(const std::vector<std::string>& paths);

// ("Warning", `299 - "<text>"`) for each distinct text, quotes and backslashes escaped. When the
// headers exceed 4096 bytes in all, each text is cut to 256 characters and headers are added only
// while less than 4096 bytes came before them (kube's limits on what one response carries).
std::vector<std::pair<std::string, std::string>> WarningHeaders(
    const std::vector<std::string>& texts);

}  // namespace tenure::server
