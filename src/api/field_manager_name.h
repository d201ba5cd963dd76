// The name of a field manager as kube-apiserver checks it (apimachinery's ValidateFieldManager):
// at most 128 bytes of printable characters; and the printable prefix of a text, which names
// the manager of a write that gives none (its User-Agent's first word).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "api/validation.h"

namespace tenure::api {

inline constexpr size_t kFieldManagerMaxLength = 128;

// Too long, and an Invalid error per character that is not printable (Go's unicode.IsPrint):
// `invalid character U+0007 (at position 1)`, at `path`.
FieldErrors ValidateFieldManager(std::string_view manager, const std::string& path);

// The printable characters of `text` (UTF-8), at most `max_bytes` of them, stopping before the
// first that would not fit.
std::string PrintablePrefix(std::string_view text, size_t max_bytes);

}  // namespace tenure::api
