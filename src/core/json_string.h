// JSON string literals and UTF-8, shared by the log's lines and the API's JSON writer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tenure {

// The length of the well-formed UTF-8 sequence at p (its first byte >= 0x80), 0 when it is not
// one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t Utf8Length(const unsigned char* p, const unsigned char* end);

// `text` appended as a JSON string literal, escaped as nlohmann's dump() escapes it: quotes,
// backslashes and control characters (\n, \t, \u0001), every other byte as it is. false when
// `text` is not UTF-8 (its bytes are appended all the same).
bool AppendJsonString(std::string& out, std::string_view text);

}  // namespace tenure
