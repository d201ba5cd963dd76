// Stored object text -> the text sent to a client, without re-parsing on the hot path.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "api/kinds.h"

namespace tenure::server {

// Adds "resourceVersion":"<revision>" to the top-level metadata of canonical object JSON (keys
// sorted, as the canonicalizer writes them, so the first "metadata":{ is the top-level one).
// Revision 0 (an object never stored: a dry-run create) adds nothing, as kube-apiserver leaves
// its resourceVersion empty.
std::string WithResourceVersion(std::string_view stored, int64_t revision);

// The top-level metadata object of canonical object JSON, as text ("" when absent or
// malformed). Same assumption as WithResourceVersion: the first "metadata":{ is top-level.
std::string_view StoredMetadata(std::string_view stored);

// The object as served at `version` of its kind: converted from the form it is stored in (an
// events.k8s.io Event from core/v1's), resourceVersion added, apiVersion rewritten when the
// object was stored through another version (LeaseCandidate v1alpha2 / v1beta1).
std::string ObjectText(const api::KindInfo& kind, std::string_view version, std::string_view stored,
                       int64_t revision);

// A stored object as `kind` serves it (parsed; converted from the form of the kind it is stored
// as, if any), for the updates and patches that start from it.
nlohmann::json ServedObject(const api::KindInfo& kind, std::string_view stored);
// The value to store for `object` of `kind` (in the form of the kind it is stored as, if any),
// holding no more memory than its text needs.
std::string StoredValue(const api::KindInfo& kind, const nlohmann::json& object);

}  // namespace tenure::server
