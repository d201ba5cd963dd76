// JSON that clients send: every reader of request bodies parses through here, so that one
// nesting limit (kube-apiserver's 10,000) holds for every path, and every recursive algorithm
// after it (patches, canonicalization, comparison, serialization) sees bounded depth.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "tenure/status.h"

namespace tenure::api {

// kube-apiserver's maxNestingDepth (sigs.k8s.io/json): arrays and objects inside each other.
inline constexpr size_t kMaxJsonNesting = 10000;

// The deepest nesting of arrays and objects in `text` (brackets inside strings do not count),
// scanning no further than the first point where it exceeds `limit` (then limit + 1). Linear
// time, constant memory; `text` need not be valid JSON.
size_t JsonNesting(std::string_view text, size_t limit = kMaxJsonNesting);

// The nesting depth of a parsed value (a scalar: 0, [] or {}: 1), without recursion: what a
// transformation (a JSON patch placing or copying a value) checks before it builds a deeper
// document than a body may be.
size_t JsonValueDepth(const nlohmann::json& value);

// Parses a request body. BadRequest "the body of the request could not be decoded as JSON" when
// it is not JSON, and "...: exceeded max depth 10000" when it nests deeper than the limit.
Result<nlohmann::json> ParseClientJson(std::string_view text);

}  // namespace tenure::api
