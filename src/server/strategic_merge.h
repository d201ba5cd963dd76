// The merge of strategic merge patch, shared with server-side apply (strategic_merge_patch.cc):
// maps merge recursively, the lists tenure's kinds give a patch strategy merge by it (patch.h),
// every other value replaces.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tenure/status.h"

namespace tenure::server {

// The "kind" of `a`, else of `b`; "" when neither is an object naming one.
std::string KindOf(const nlohmann::json& a, const nlohmann::json& b);

// Merges patch object `patch` into `original` (any value; non-objects count as absent) with the
// list strategies of `kind`. `directives`: strategic merge patch (true: "$patch", "$retainKeys",
// "$setElementOrder/", "$deleteFromPrimitiveList/" are understood and never stored) or
// server-side apply (false: "$" keys are data). Sets *deleted when the patch says
// "$patch": "delete".
Result<nlohmann::json> StrategicMerge(std::string kind, const nlohmann::json& original,
                                      const nlohmann::json& patch, bool directives, bool* deleted);

}  // namespace tenure::server
