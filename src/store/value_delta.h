// ValueDelta: a value written as its differences from another value, for the watch history's
// superseded versions. A renewed Lease differs from its next version in a few timestamps only,
// so its delta against that version is tens of bytes where the value is hundreds.
//
// The encoding: a sequence of operations, each a varint header (length << 1 | kind) followed,
// for a copy (kind 0), by a varint offset into the base, or, for literal bytes (kind 1), by the
// bytes themselves. Internal to the store: not a format kept on disk or sent anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tenure::store {

// The delta that makes `target` from `base`.
std::string MakeDelta(std::string_view target, std::string_view base);

// `target` again, from MakeDelta(target, base) and the same base; nullopt when the delta is cut
// short or reaches outside the base (a delta applied to a shorter base than its own, or damaged).
std::optional<std::string> ApplyDelta(std::string_view delta, std::string_view base);

// How many times ApplyDelta ran in this process: tests check how much work a rebuild does.
uint64_t DeltasApplied();

}  // namespace tenure::store
