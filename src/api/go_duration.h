// Durations as Go's time.ParseDuration reads them ("300ms", "1.5s", "1h2m", "0"): how
// Kubernetes clients write the `timeout` query parameter.
#pragma once

#include <chrono>
#include <string_view>

#include "tenure/status.h"

namespace tenure::api {

// Go's grammar exactly: an optional sign, then one or more decimal numbers (with an optional
// fraction) each followed by a unit of ns, us, µs, ms, s, m or h; "0" alone is zero. BadRequest
// naming the text otherwise, worded as Go's error ("time: invalid duration \"x\""), also when the
// value does not fit in 64-bit nanoseconds.
Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text);

}  // namespace tenure::api
