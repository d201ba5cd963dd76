// The environment of a child process: this process's own, with some variables set to other
// values. A name given in `overrides` replaces the inherited one instead of following it: C's
// getenv and Go's os.Getenv both read the first copy of a name, so an appended copy would be
// ignored.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tenure::client {

std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides);

}  // namespace tenure::client
