// ObjectMembers: an object's JSON text read as its top-level members, each the span of its value,
// in one checked pass (JsonScanner) that builds no tree; and the same text written back with some
// members replaced. For a client that sends an object back with one member changed and reads
// only a few of its members (a lock's renewal: its record and its resourceVersion).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tenure::api {

struct ObjectMember {
  std::string key;
  size_t begin = 0;  // where the member's value starts in the text
  size_t end = 0;    // one past where it ends
};

// The members of the object `text`, in their order; nullopt when `text` is not one well-formed
// JSON object (nothing but whitespace may follow it).
std::optional<std::vector<ObjectMember>> ReadObjectMembers(std::string_view text);

// The last member named `key` (the one a parser keeps); null when there is none.
const ObjectMember* FindMember(const std::vector<ObjectMember>& members, std::string_view key);

// The object `text` (read as `members`) with every member named in `replace` holding the value
// given there (JSON text, taken as it is), and those it lacks added before its own, in the order
// given. The other members keep their bytes and their order.
std::string ReplaceMembers(
    std::string_view text, const std::vector<ObjectMember>& members,
    const std::vector<std::pair<std::string_view, std::string_view>>& replace);

// The JSON text `value` decoded as a string; nullopt when it is not one.
std::optional<std::string> DecodeString(std::string_view value);

}  // namespace tenure::api
