// The one parser of resourceVersions. To a client a resourceVersion is an opaque string in
// general; tenure's servers (and etcd-backed kube-apiservers) write one increasing integer, and
// every piece of tenure that reads one as a number (the server reading a request, the client
// ordering two versions of an object, a lock's fencing token) parses it here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tenure::api {

// `text` as a decimal integer: digits only (no sign, no spaces, leading zeros allowed);
// nullopt when it is empty, holds anything else, or exceeds UINT64_MAX. Each caller decides
// what "" means to it and how large a version it accepts.
std::optional<uint64_t> ParseResourceVersion(std::string_view text);

}  // namespace tenure::api
