// Ordering two versions of one object by metadata.resourceVersion. resourceVersions are opaque
// to clients in general; tenure's and etcd-backed servers' are one increasing integer, so where
// both are integers they order writes, and otherwise nothing is known.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "api/resource_version.h"

namespace tenure::client {

// The resourceVersion as an integer; nullopt when it is empty or not a decimal integer.
using api::ParseResourceVersion;
// The object's metadata.resourceVersion as an integer (see ParseResourceVersion).
std::optional<uint64_t> ResourceVersionOf(const nlohmann::json& object);
// True only when both versions are known and `a` is the older one.
bool KnownOlder(std::optional<uint64_t> a, std::optional<uint64_t> b);

}  // namespace tenure::client
