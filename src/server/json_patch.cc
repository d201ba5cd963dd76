// RFC 6902 JSON patch (application/json-patch+json) over RFC 6901 JSON Pointers, with
// kube-apiserver's limits and error messages.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/client_json.h"
#include "server/patch.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr std::string_view kRejected =
    "the server rejected our request due to an error in our request";
constexpr size_t kMaxJsonPatchOperations = 10000;

// A JSON patch operation that does not apply: kube-apiserver's 422 with the json-patch error as
// the cause.
Status NotApplicable(std::string detail) {
  return Status(Reason::kInvalid, std::string(kRejected),
                {StatusCause{"UnexpectedServerResponse", std::move(detail), ""}});
}

Result<std::vector<std::string>> ParsePointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer.front() != '/') {
    return NotApplicable("JSON pointer must be empty or start with a \"/\": \"" +
                         std::string(pointer) + "\"");
  }
  pointer.remove_prefix(1);
  while (true) {
    size_t slash = pointer.find('/');
    std::string_view raw = pointer.substr(0, slash);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token += raw[i];
      } else if (i + 1 < raw.size() && raw[i + 1] == '0') {
        token += '~';
        ++i;
      } else if (i + 1 < raw.size() && raw[i + 1] == '1') {
        token += '/';
        ++i;
      } else {
        return NotApplicable("invalid escape in JSON pointer: \"/" + std::string(raw) + "\"");
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  return tokens;
}

// An array index token: digits without leading zeros.
std::optional<size_t> ParseIndex(const std::string& token) {
  if (token.empty() || token.size() > 18) return std::nullopt;
  if (token.size() > 1 && token[0] == '0') return std::nullopt;
  size_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  return value;
}

// The value at tokens[0, count) or nullptr when it does not exist.
json* Resolve(json& doc, const std::vector<std::string>& tokens, size_t count) {
  json* at = &doc;
  for (size_t i = 0; i < count; ++i) {
    if (at->is_object()) {
      auto it = at->find(tokens[i]);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array()) {
      auto index = ParseIndex(tokens[i]);
      if (!index || *index >= at->size()) return nullptr;
      at = &(*at)[*index];
    } else {
      return nullptr;
    }
  }
  return at;
}

Status Add(json& doc, const std::string& path, json value) {
  auto tokens = ParsePointer(path);
  if (!tokens.ok()) return tokens.status();
  if (tokens->empty()) {
    doc = std::move(value);
    return Status::Ok();
  }
  json* parent = Resolve(doc, *tokens, tokens->size() - 1);
  const std::string& last = tokens->back();
  if (parent == nullptr || !(parent->is_object() || parent->is_array())) {
    return NotApplicable("add operation does not apply: doc is missing path: \"" + path +
                         "\": missing value");
  }
  if (parent->is_object()) {
    (*parent)[last] = std::move(value);
    return Status::Ok();
  }
  if (last == "-") {
    parent->push_back(std::move(value));
    return Status::Ok();
  }
  auto index = ParseIndex(last);
  if (!index || *index > parent->size()) {
    return NotApplicable("Unable to access invalid index: " + last + ": invalid index referenced");
  }
  parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(*index), std::move(value));
  return Status::Ok();
}

Status Remove(json& doc, const std::string& path, std::string_view op = "remove") {
  auto tokens = ParsePointer(path);
  if (!tokens.ok()) return tokens.status();
  json* parent = tokens->empty() ? nullptr : Resolve(doc, *tokens, tokens->size() - 1);
  if (parent != nullptr) {
    const std::string& last = tokens->back();
    if (parent->is_object() && parent->erase(last) == 1) return Status::Ok();
    if (parent->is_array()) {
      auto index = ParseIndex(last);
      if (index && *index < parent->size()) {
        parent->erase(*index);
        return Status::Ok();
      }
    }
  }
  return NotApplicable(std::string(op) + " operation does not apply: doc is missing path: \"" +
                       path + "\": missing value");
}

// The value at `path` (not a copy).
Result<json*> Find(json& doc, const std::string& path, std::string_view what) {
  auto tokens = ParsePointer(path);
  if (!tokens.ok()) return tokens.status();
  json* at = Resolve(doc, *tokens, tokens->size());
  if (at == nullptr) {
    return NotApplicable(std::string(what) + " \"" + path + "\": missing value");
  }
  return at;
}

// A value placed at `path` sits inside as many containers as the path has tokens: the document
// must not nest deeper than a request body may (every later step recurses over it), and a few
// operations copying a deep subtree into itself would double its depth each time.
Status CheckPlacedDepth(const std::string& path, const json& value) {
  auto tokens = ParsePointer(path);
  if (!tokens.ok()) return tokens.status();
  if (tokens->size() + api::JsonValueDepth(value) > api::kMaxJsonNesting) {
    return NotApplicable("the document would nest deeper than " +
                         std::to_string(api::kMaxJsonNesting) + " levels at " + path);
  }
  return Status::Ok();
}

Result<std::string> MemberString(const json& op, const char* name, const std::string& kind) {
  auto it = op.find(name);
  if (it == op.end() || !it->is_string()) {
    return NotApplicable(kind + " operation does not apply: \"" + name +
                         "\" is missing or not a string");
  }
  return it->get<std::string>();
}

// kube-apiserver's JSONPatchMaxCopyBytes: how much `copy` operations may grow one patch's
// document in all (a few operations that each copy the document double it every time).
constexpr size_t kMaxJsonPatchCopyBytes = 3 * 1024 * 1024;

// `copied`: bytes added by the patch's copy operations so far.
Status ApplyOperation(json& doc, const json& op, size_t& copied) {
  if (!op.is_object()) return NotApplicable("json patch operation must be an object");
  auto kind_it = op.find("op");
  std::string kind = kind_it != op.end() && kind_it->is_string() ? kind_it->get<std::string>() : "";
  if (kind != "add" && kind != "remove" && kind != "replace" && kind != "move" && kind != "copy" &&
      kind != "test") {
    return NotApplicable("Unexpected kind: " + kind);
  }
  auto path = MemberString(op, "path", kind);
  if (!path.ok()) return path.status();
  auto value_it = op.find("value");
  bool needs_value = kind == "add" || kind == "replace" || kind == "test";
  if (needs_value && value_it == op.end()) {
    return NotApplicable(kind + " operation does not apply: \"value\" is missing");
  }

  if (kind == "add" || kind == "replace") {
    if (Status s = CheckPlacedDepth(*path, *value_it); !s.ok()) return s;
  }
  if (kind == "add") return Add(doc, *path, *value_it);
  if (kind == "remove") return Remove(doc, *path);
  if (kind == "replace") {
    auto tokens = ParsePointer(*path);
    if (!tokens.ok()) return tokens.status();
    json* at = Resolve(doc, *tokens, tokens->size());
    if (at == nullptr || (!tokens->empty() && tokens->back() == "-")) {
      return NotApplicable("replace operation does not apply: doc is missing key: " + *path +
                           ": missing value");
    }
    *at = *value_it;
    return Status::Ok();
  }
  if (kind == "test") {
    auto tokens = ParsePointer(*path);
    if (!tokens.ok()) return tokens.status();
    json* at = Resolve(doc, *tokens, tokens->size());
    bool equal = at != nullptr ? *at == *value_it : value_it->is_null();
    if (!equal) return NotApplicable("testing value " + *path + " failed: test failed");
    return Status::Ok();
  }
  auto from = MemberString(op, "from", kind);
  if (!from.ok()) return from.status();
  auto source = Find(doc, *from, kind + " operation does not apply: doc is missing from path:");
  if (!source.ok()) return source.status();
  if (Status s = CheckPlacedDepth(*path, **source); !s.ok()) return s;
  json value;
  if (kind == "move") {
    if (*path != *from && path->starts_with(*from + "/")) {
      return NotApplicable("move operation does not apply: \"from\" " + *from +
                           " is a prefix of \"path\" " + *path);
    }
    if (*path == *from) return Status::Ok();
    value = std::move(**source);  // moved, not copied: moves cost nothing however large
    if (Status s = Remove(doc, *from, "move"); !s.ok()) return s;
  } else {
    copied += (*source)->dump(-1, ' ', false, json::error_handler_t::replace).size();
    if (copied > kMaxJsonPatchCopyBytes) {
      return NotApplicable("Unable to copy, the accumulated size increase of copy is " +
                           std::to_string(copied) + ", exceeding the limit " +
                           std::to_string(kMaxJsonPatchCopyBytes));
    }
    value = **source;
  }
  return Add(doc, *path, std::move(value));
}

}  // namespace

Result<json> ApplyJsonPatch(const json& target, const json& patch) {
  if (!patch.is_array()) {
    return Status::BadRequest("json: cannot unmarshal " + std::string(patch.type_name()) +
                              " into Go value of type jsonpatch.Patch");
  }
  for (const auto& op : patch) {
    if (!op.is_object()) {
      return Status::BadRequest("json: cannot unmarshal " + std::string(op.type_name()) +
                                " into Go value of type jsonpatch.Operation");
    }
  }
  if (patch.size() > kMaxJsonPatchOperations) {
    return Status(Reason::kRequestEntityTooLarge,
                  "The allowed maximum operations in a JSON patch is " +
                      std::to_string(kMaxJsonPatchOperations) + ", got " +
                      std::to_string(patch.size()));
  }
  json doc = target;
  size_t copied = 0;
  for (const auto& op : patch) {
    if (Status s = ApplyOperation(doc, op, copied); !s.ok()) return s;
  }
  return doc;
}

}  // namespace tenure::server
