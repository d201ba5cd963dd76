// nlohmann trees from and to JSON text, as nlohmann's own parse() and dump() make them, at about
// twice their speed: for the hot paths (every stored object an update starts from and writes, every
// request body, every object a shared watch or a lock reads). Built on the JsonScanner.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace tenure::api {

// `text` parsed as nlohmann::json::parse(text, nullptr, false) parses it: the same tree, types
// included, or a discarded value (is_discarded()) where nlohmann refuses the text. One
// difference: nlohmann takes a NUL byte outside a string as the end of its input, this refuses
// it. No token buffer, strings copied in runs.
nlohmann::json ParseJson(std::string_view text);

// The same, throwing nlohmann's parse_error where nlohmann::json::parse(text) throws it: for text
// the program wrote itself (a stored object), whose refusal is not a client's error.
nlohmann::json ParseJsonOrThrow(std::string_view text);

// `value` as value.dump() writes it, byte for byte (compact, members in the tree's order), and
// throwing what dump() throws (a string that is not UTF-8). Strings are copied in runs.
std::string DumpJson(const nlohmann::json& value);

// Whether `a` and `b` are the same tree with the same types and signs (nlohmann's == takes 1, 1u
// and 1.0 as equal, and -0.0 and 0.0; their text differs).
bool IdenticalJson(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace tenure::api
