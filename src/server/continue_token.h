// Continue tokens of paginated lists, as kube-apiserver writes and reads them: the unpadded
// URL-safe base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}, where <key> is the key to
// resume from relative to the list's storage prefix (the last returned key plus "\u0000").
// rv -1 is "from that key at the latest revision" (the token of a 410 Expired answer).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tenure/status.h"

namespace tenure::server {

struct ContinueToken {
  int64_t revision = 0;
  std::string start_key;  // the full storage key to resume from
};

// The token resuming a list under `prefix` at `revision` from `start_key` (a key under prefix).
std::string EncodeContinue(std::string_view prefix, std::string_view start_key, int64_t revision);

// Reads a client's token for a list under `prefix`. A malformed one is kube's 400
// "invalid continue token: continue key is not valid: ...". The key is cleaned as a path: a token
// can never resume outside the prefix it is read for.
Result<ContinueToken> DecodeContinue(std::string_view token, std::string_view prefix);

// The 410 Expired answer to a token whose revision is no longer kept, carrying the token that
// resumes inconsistently (at the latest revision) in its list metadata.
Status ExpiredContinue(std::string_view prefix, std::string_view start_key);

}  // namespace tenure::server
