// ObjectMembers: the top-level members of an object's text as spans, and the text rewritten.
#include "api/object_members.h"

#include <nlohmann/json.hpp>

#include "api/json_scanner.h"

namespace tenure::api {
namespace {

// A member's key as JSON text: quoted as it is when it needs no escape (every key of a
// Kubernetes object), through nlohmann otherwise.
void AppendKey(std::string& out, std::string_view key) {
  for (char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\') {
      out += nlohmann::json(key).dump();
      return;
    }
  }
  out += '"';
  out += key;
  out += '"';
}

}  // namespace

std::optional<std::vector<ObjectMember>> ReadObjectMembers(std::string_view text) {
  JsonScanner scan(text);
  std::vector<ObjectMember> members;
  const auto at = [&](const char* p) { return static_cast<size_t>(p - text.data()); };
  const auto step = scan.Members([&](const std::string& key) {
    scan.Peek();  // past the whitespace before the value
    const char* begin = scan.position();
    if (!scan.SkipValue()) return JsonScanner::Step::kError;
    members.push_back({key, at(begin), at(scan.position())});
    return JsonScanner::Step::kNext;
  });
  if (step != JsonScanner::Step::kNext || !scan.AtEnd()) return std::nullopt;
  return members;
}

const ObjectMember* FindMember(const std::vector<ObjectMember>& members, std::string_view key) {
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    if (it->key == key) return &*it;
  }
  return nullptr;
}

std::string ReplaceMembers(
    std::string_view text, const std::vector<ObjectMember>& members,
    const std::vector<std::pair<std::string_view, std::string_view>>& replace) {
  std::string out;
  out.reserve(text.size() + 64);
  out += '{';
  const auto add = [&](std::string_view key, std::string_view value) {
    if (out.size() > 1) out += ',';
    AppendKey(out, key);
    out += ':';
    out += value;
  };
  // Those the object lacks first, in the order given (a body's apiVersion and kind lead it).
  for (const auto& [key, value] : replace) {
    if (FindMember(members, key) == nullptr) add(key, value);
  }
  for (const ObjectMember& member : members) {
    std::string_view value = text.substr(member.begin, member.end - member.begin);
    for (const auto& [key, replacement] : replace) {
      if (key == member.key) {
        value = replacement;
        break;
      }
    }
    add(member.key, value);
  }
  out += '}';
  return out;
}

std::optional<std::string> DecodeString(std::string_view value) {
  JsonScanner scan(value);
  std::string out;
  if (scan.Peek() != '"' || !scan.String(&out) || !scan.AtEnd()) return std::nullopt;
  return out;
}

}  // namespace tenure::api
