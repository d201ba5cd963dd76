// BearerTokenOf: the token of an Authorization header, read as kube-apiserver reads it: the value
// trimmed, split on single spaces into at most three parts, the scheme "bearer" in any case, the
// token the second part (a third is ignored). Another scheme, no token, or two spaces before it
// ("Bearer  x") give nothing: the request is then treated as one without credentials.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tenure::server {

std::optional<std::string> BearerTokenOf(std::string_view authorization);

}  // namespace tenure::server
