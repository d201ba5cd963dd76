// The four PATCH types: JSON merge patch, JSON patch, strategic merge patch, server-side apply.
#include "server/patch.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api/client_json.h"

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

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// ---------------------------------------------------------------------------------------------
// RFC 6901 JSON Pointer and RFC 6902 JSON Patch.

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
    if (*path != *from && StartsWith(*path, *from + "/")) {
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

// ---------------------------------------------------------------------------------------------
// Strategic merge patch and server-side apply.

enum class ListStrategy { kReplace, kPrimitiveSet, kMergeByKey };

struct ListMeta {
  ListStrategy strategy = ListStrategy::kReplace;
  std::string merge_key;
};

// Patch metadata of tenure's kinds: the only lists whose Go types carry a patch strategy.
ListMeta ListMetaFor(std::string_view kind, const std::vector<std::string>& path) {
  if (path.size() == 2 && path[0] == "metadata") {
    if (path[1] == "finalizers") return {ListStrategy::kPrimitiveSet, ""};
    if (path[1] == "ownerReferences") return {ListStrategy::kMergeByKey, "uid"};
  }
  if (kind == "Namespace" && path.size() == 2 && path[0] == "status" && path[1] == "conditions") {
    return {ListStrategy::kMergeByKey, "type"};
  }
  return {};
}

constexpr std::string_view kPatchDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrder = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";

bool IsDirective(std::string_view key) {
  return key == kPatchDirective || key == kRetainKeys || StartsWith(key, kSetElementOrder) ||
         StartsWith(key, kDeleteFromPrimitiveList);
}

class Merger {
 public:
  // `directives`: strategic merge patch (true) or server-side apply (false, "$" keys are data).
  Merger(std::string kind, bool directives) : kind_(std::move(kind)), directives_(directives) {}

  // Merges patch object `patch` into `original` (any value; non-objects count as absent).
  // Sets *deleted when the patch says "$patch": "delete".
  Result<json> MergeMap(const json& original, const json& patch, std::vector<std::string>& path,
                        bool* deleted) {
    *deleted = false;
    if (directives_) {
      if (auto it = patch.find(kPatchDirective); it != patch.end()) {
        std::string directive = it->is_string() ? it->get<std::string>() : it->dump();
        if (directive == "delete") {
          *deleted = true;
          return json();
        }
        if (directive == "replace") {
          json replaced = patch;
          replaced.erase(std::string(kPatchDirective));
          return Strip(replaced);
        }
        if (directive != "merge") {
          return Status::BadRequest("unknown patch type: " + directive +
                                    " in map: " + patch.dump());
        }
      }
    }
    json result = original.is_object() ? original : json::object();

    if (directives_) {
      if (auto it = patch.find(kRetainKeys); it != patch.end()) {
        if (!it->is_array()) {
          return Status::BadRequest("invalid $retainKeys: must be a list of strings, got " +
                                    it->dump());
        }
        std::unordered_set<json> retain(it->begin(), it->end());
        std::vector<std::string> drop;
        for (const auto& [key, value] : result.items()) {
          if (!retain.contains(json(key))) drop.push_back(key);
        }
        for (const auto& key : drop) result.erase(key);
      }
      for (const auto& [key, value] : patch.items()) {
        if (!StartsWith(key, kDeleteFromPrimitiveList)) continue;
        std::string field = key.substr(kDeleteFromPrimitiveList.size());
        if (!value.is_array()) {
          return Status::BadRequest("invalid " + key + ": must be a list, got " + value.dump());
        }
        auto target = result.find(field);
        if (target == result.end() || !target->is_array()) continue;
        std::unordered_set<json> removed(value.begin(), value.end());
        json kept = json::array();
        for (const auto& element : *target) {
          if (!removed.contains(element)) kept.push_back(element);
        }
        if (kept.empty()) {
          result.erase(field);
        } else {
          *target = std::move(kept);
        }
      }
    }

    for (const auto& [key, value] : patch.items()) {
      if (directives_ && IsDirective(key)) continue;
      if (value.is_null()) {
        result.erase(key);
        continue;
      }
      path.push_back(key);
      auto existing = result.find(key);
      json current = existing != result.end() ? *existing : json();
      if (value.is_object()) {
        bool child_deleted = false;
        auto merged = MergeMap(current, value, path, &child_deleted);
        if (!merged.ok()) return merged.status();
        if (child_deleted) {
          result.erase(key);
        } else {
          result[key] = std::move(*merged);
        }
      } else if (value.is_array()) {
        auto merged = MergeList(current, value, ListMetaFor(kind_, path), path);
        if (!merged.ok()) return merged.status();
        result[key] = std::move(*merged);
      } else {
        result[key] = value;
      }
      path.pop_back();
    }

    if (directives_) {
      for (const auto& [key, value] : patch.items()) {
        if (!StartsWith(key, kSetElementOrder)) continue;
        std::string field = key.substr(kSetElementOrder.size());
        if (!value.is_array()) {
          return Status::BadRequest("invalid " + key + ": must be a list, got " + value.dump());
        }
        auto target = result.find(field);
        if (target == result.end() || !target->is_array()) continue;
        path.push_back(field);
        *target = Reorder(*target, value, ListMetaFor(kind_, path));
        path.pop_back();
      }
    }
    return result;
  }

  // Removes every directive from a value that is stored as is (a replaced field).
  json Strip(const json& value) const {
    if (!directives_) return value;
    if (value.is_object()) {
      json out = json::object();
      for (const auto& [key, child] : value.items()) {
        if (!IsDirective(key)) out[key] = Strip(child);
      }
      return out;
    }
    if (value.is_array()) {
      json out = json::array();
      for (const auto& child : value) {
        if (IsListDirective(child)) continue;
        out.push_back(Strip(child));
      }
      return out;
    }
    return value;
  }

 private:
  // A list element that only carries "$patch" (e.g. {"$patch": "replace"}).
  bool IsListDirective(const json& element) const {
    return directives_ && element.is_object() && element.size() == 1 &&
           element.contains(kPatchDirective);
  }

  static const json* KeyOf(const json& element, const std::string& merge_key) {
    if (!element.is_object()) return nullptr;
    auto it = element.find(merge_key);
    return it == element.end() ? nullptr : &*it;
  }

  Result<json> MergeList(const json& original, const json& patch, const ListMeta& meta,
                         std::vector<std::string>& path) {
    bool replace = meta.strategy == ListStrategy::kReplace;
    for (const auto& element : patch) {
      if (!IsListDirective(element)) continue;
      const json& directive = element[std::string(kPatchDirective)];
      if (directive == "replace") {
        replace = true;
      } else if (directive != "merge") {
        return Status::BadRequest("unknown patch type: " + directive.dump() +
                                  " in list: " + patch.dump());
      }
    }
    if (replace) return Strip(patch);

    // Linear in the lengths of both lists (hash lookups): a list of 40,000 finalizers once
    // took 11.7 s here.
    json result = original.is_array() ? original : json::array();
    if (meta.strategy == ListStrategy::kPrimitiveSet) {
      std::unordered_set<json> present(result.begin(), result.end());
      for (const auto& element : patch) {
        if (IsListDirective(element)) continue;
        if (present.insert(element).second) result.push_back(element);
      }
      return result;
    }
    // The positions of the elements with each merge key, in list order (a search from the
    // front finds the first); deleted ones leave a hole until the list is rebuilt.
    std::vector<std::optional<json>> items(result.begin(), result.end());
    std::unordered_map<json, std::deque<size_t>> by_key;
    for (size_t i = 0; i < items.size(); ++i) {
      if (const json* key = KeyOf(*items[i], meta.merge_key)) by_key[*key].push_back(i);
    }
    for (const auto& element : patch) {
      if (IsListDirective(element)) continue;
      const json* key = KeyOf(element, meta.merge_key);
      if (key == nullptr) {
        return Status::BadRequest("map: " + element.dump() +
                                  " does not contain declared merge key: " + meta.merge_key);
      }
      std::deque<size_t>& same_key = by_key[*key];
      bool found = !same_key.empty();
      bool deleted = false;
      auto merged = MergeMap(found ? *items[same_key.front()] : json(), element, path, &deleted);
      if (!merged.ok()) return merged.status();
      if (deleted) {
        if (found) {
          items[same_key.front()].reset();
          same_key.pop_front();  // a later duplicate is the one a search finds now
        }
      } else if (found) {
        items[same_key.front()] = std::move(*merged);
      } else {
        same_key.push_back(items.size());
        items.push_back(std::move(*merged));
      }
    }
    json out = json::array();
    for (auto& item : items) {
      if (item) out.push_back(std::move(*item));
    }
    return out;
  }

  // Orders `list` as `order` says; elements `order` does not mention keep their relative order
  // after the mentioned ones.
  static json Reorder(const json& list, const json& order, const ListMeta& meta) {
    auto identity = [&](const json& element) -> json {
      if (meta.strategy == ListStrategy::kMergeByKey) {
        const json* key = KeyOf(element, meta.merge_key);
        return key != nullptr ? *key : json();
      }
      return element;
    };
    // The unused positions of each identity, in list order.
    std::unordered_map<json, std::deque<size_t>> positions;
    for (size_t i = 0; i < list.size(); ++i) positions[identity(list[i])].push_back(i);
    json ordered = json::array();
    std::vector<bool> used(list.size(), false);
    for (const auto& wanted : order) {
      auto it = positions.find(identity(wanted));
      if (it == positions.end() || it->second.empty()) continue;
      size_t i = it->second.front();
      it->second.pop_front();
      ordered.push_back(list[i]);
      used[i] = true;
    }
    for (size_t i = 0; i < list.size(); ++i) {
      if (!used[i]) ordered.push_back(list[i]);
    }
    return ordered;
  }

  std::string kind_;
  bool directives_;
};

json PruneNulls(const json& value) {
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [key, child] : value.items()) {
      if (!child.is_null()) out[key] = PruneNulls(child);
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& child : value) out.push_back(PruneNulls(child));
    return out;
  }
  return value;
}

std::string KindOf(const json& a, const json& b) {
  for (const json* object : {&a, &b}) {
    if (object->is_object()) {
      auto it = object->find("kind");
      if (it != object->end() && it->is_string()) return it->get<std::string>();
    }
  }
  return "";
}

}  // namespace

std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type) {
  std::string media = Lower(Trim(content_type.substr(0, content_type.find(';'))));
  if (media == "application/merge-patch+json") return PatchType::kMerge;
  if (media == "application/strategic-merge-patch+json") return PatchType::kStrategicMerge;
  if (media == "application/json-patch+json") return PatchType::kJson;
  if (media == "application/apply-patch+yaml") return PatchType::kApply;
  return std::nullopt;
}

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "";
}

namespace {
json MergePatchValue(const json& target, const json& patch) {
  if (!patch.is_object()) return patch;
  json result = target.is_object() ? target : json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      result.erase(key);
    } else {
      auto it = result.find(key);
      result[key] = MergePatchValue(it != result.end() ? *it : json(), value);
    }
  }
  return result;
}
}  // namespace

Result<json> ApplyMergePatch(const json& target, const json& patch) {
  if (!patch.is_object()) return Status::BadRequest("Invalid JSON Patch");
  return MergePatchValue(target, patch);
}

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

Result<json> ApplyStrategicMergePatch(const json& target, const json& patch) {
  if (!patch.is_object()) {
    return Status::BadRequest("json: cannot unmarshal " + std::string(patch.type_name()) +
                              " into Go value of type map[string]interface {}");
  }
  Merger merger(KindOf(target, patch), /*directives=*/true);
  std::vector<std::string> path;
  bool deleted = false;
  auto merged = merger.MergeMap(target, patch, path, &deleted);
  if (!merged.ok()) return merged.status();
  if (deleted) return json::object();
  return merged;
}

Result<json> ApplyServerSideApply(const json* existing, const json& applied) {
  if (!applied.is_object()) {
    return Status::BadRequest(
        "error decoding YAML: the applied configuration must be an object, got " +
        std::string(applied.type_name()));
  }
  json configuration = applied;
  if (auto meta = configuration.find("metadata");
      meta != configuration.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  if (existing == nullptr || existing->is_null()) return PruneNulls(configuration);
  Merger merger(KindOf(*existing, applied), /*directives=*/false);
  std::vector<std::string> path;
  bool deleted = false;
  return merger.MergeMap(*existing, configuration, path, &deleted);
}

}  // namespace tenure::server
