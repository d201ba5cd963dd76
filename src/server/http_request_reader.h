// The HTTP/1.1 request reader's limits and a parser of a complete request held in memory, with
// the same parser settings and conversion the server's connections use (for the fuzzer and for
// tests; Beast stays out of this header).
#pragma once

#include <cstddef>
#include <string_view>

#include "server/http_server.h"
#include "tenure/status.h"

namespace tenure::server {

inline constexpr size_t kMaxRequestHeadBytes = 64 * 1024;

// Parses `bytes` as one HTTP/1.1 request with a body of at most `max_body_bytes`: BadRequest
// when it is malformed or incomplete, RequestEntityTooLarge past the body limit.
Result<HttpRequest> ParseHttpRequest(std::string_view bytes, size_t max_body_bytes);

}  // namespace tenure::server
