// Internal: canonicalization of one JSON object against its description, for Canonicalize
// (kinds.h, which also checks apiVersion and kind) and the typed decoders (codec.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/description.h"

namespace tenure::api::internal {

// Canonicalizes `in` (a JSON object) against `description` into `out`, ignoring apiVersion/kind
// semantics. Returns "" on success, else the decode error text (a type error, or when `strict`,
// 'strict decoding error: unknown field "spec.x", ...'). Not strict, the paths of the unknown
// fields are appended to `unknown_fields` when it is given (kube's fieldValidation=Warn).
std::string CanonicalizeObject(const ObjectDescription& description, const nlohmann::json& in,
                               nlohmann::json& out, bool strict,
                               std::vector<std::string>* unknown_fields = nullptr);

}  // namespace tenure::api::internal
