// FieldSet: set operations over the ordered trie, and its fieldsV1 form.
#include "server/field_set.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

namespace tenure::server {
namespace {

using nlohmann::json;

// The children of a fieldsV1 object, as structured-merge-diff's readIterV1: "." marks the node
// itself, `{}` (or an object whose every key is of an unknown type) is a member.
Status ReadFields(const json& fields, FieldSet& out, bool& is_member, bool& has_children) {
  if (fields.is_null()) {  // as {}: a member (structured-merge-diff reads null so)
    is_member = true;
    has_children = false;
    return Status::Ok();
  }
  if (!fields.is_object()) {
    return Status::BadRequest("managedFields parsing: expected an object, got " +
                              std::string(fields.type_name()));
  }
  is_member = false;
  has_children = false;
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (it.key() == ".") {
      is_member = true;
      continue;
    }
    auto element = ParsePathElement(it.key());
    if (!element.ok()) return element.status();
    if (!element->has_value()) continue;
    FieldSet grandchildren;
    bool child_is_member = false, child_has_children = false;
    if (Status s = ReadFields(*it, grandchildren, child_is_member, child_has_children); !s.ok()) {
      return s;
    }
    if (child_is_member) {
      out.InsertMember(**element);
      has_children = true;
    }
    if (child_has_children) {
      out.Descend(**element) = std::move(grandchildren);
      has_children = true;
    }
  }
  if (!has_children) is_member = true;
  return Status::Ok();
}

void IteratePrefix(const FieldSet& set, FieldPath& prefix,
                   const std::function<void(const FieldPath&)>& visit) {
  for (const PathElement& m : set.members()) {
    prefix.push_back(m);
    visit(prefix);
    prefix.pop_back();
  }
  for (const auto& [element, child] : set.children()) {
    prefix.push_back(element);
    IteratePrefix(child, prefix, visit);
    prefix.pop_back();
  }
}

json Contents(const FieldSet& set, bool include_self) {
  json out = json::object();
  if (include_self && !set.Empty()) out["."] = json::object();
  for (const PathElement& m : set.members()) out[Serialize(m)] = json::object();
  for (const auto& [element, child] : set.children()) {
    if (child.Empty()) continue;
    out[Serialize(element)] = Contents(child, set.members().contains(element));
  }
  return out;
}

}  // namespace

FieldSet::FieldSet() = default;
FieldSet::~FieldSet() = default;
FieldSet::FieldSet(const FieldSet&) = default;
FieldSet::FieldSet(FieldSet&&) noexcept = default;
FieldSet& FieldSet::operator=(const FieldSet&) = default;
FieldSet& FieldSet::operator=(FieldSet&&) noexcept = default;

void FieldSet::InsertMember(const PathElement& element) { members_.insert(element); }

FieldSet& FieldSet::Descend(const PathElement& element) { return children_[element]; }

void FieldSet::Insert(std::span<const PathElement> path) {
  if (path.empty()) return;
  FieldSet* node = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) node = &node->Descend(path[i]);
  node->InsertMember(path.back());
}

bool FieldSet::Has(std::span<const PathElement> path) const {
  if (path.empty()) return false;
  const FieldSet* node = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    auto it = node->children_.find(path[i]);
    if (it == node->children_.end()) return false;
    node = &it->second;
  }
  return node->members_.contains(path.back());
}

bool FieldSet::Empty() const {
  if (!members_.empty()) return false;
  return std::all_of(children_.begin(), children_.end(),
                     [](const auto& c) { return c.second.Empty(); });
}

FieldSet FieldSet::Union(const FieldSet& other) const {
  FieldSet out;
  std::set_union(members_.begin(), members_.end(), other.members_.begin(), other.members_.end(),
                 std::inserter(out.members_, out.members_.end()));
  out.children_ = children_;
  for (const auto& [element, child] : other.children_) {
    auto it = out.children_.find(element);
    if (it == out.children_.end()) {
      out.children_.emplace_hint(it, element, child);
    } else {
      it->second = it->second.Union(child);
    }
  }
  return out;
}

FieldSet FieldSet::Intersection(const FieldSet& other) const {
  FieldSet out;
  std::set_intersection(members_.begin(), members_.end(), other.members_.begin(),
                        other.members_.end(), std::inserter(out.members_, out.members_.end()));
  for (const auto& [element, child] : children_) {
    auto it = other.children_.find(element);
    if (it == other.children_.end()) continue;
    FieldSet both = child.Intersection(it->second);
    if (!both.Empty()) out.children_.emplace_hint(out.children_.end(), element, std::move(both));
  }
  return out;
}

FieldSet FieldSet::Difference(const FieldSet& other) const {
  FieldSet out;
  std::set_difference(members_.begin(), members_.end(), other.members_.begin(),
                      other.members_.end(), std::inserter(out.members_, out.members_.end()));
  for (const auto& [element, child] : children_) {
    auto it = other.children_.find(element);
    if (it == other.children_.end()) {
      out.children_.emplace_hint(out.children_.end(), element, child);
      continue;
    }
    FieldSet rest = child.Difference(it->second);
    if (!rest.Empty()) out.children_.emplace_hint(out.children_.end(), element, std::move(rest));
  }
  return out;
}

FieldSet FieldSet::RecursiveDifference(const FieldSet& other) const {
  FieldSet out;
  std::set_difference(members_.begin(), members_.end(), other.members_.begin(),
                      other.members_.end(), std::inserter(out.members_, out.members_.end()));
  for (const auto& [element, child] : children_) {
    if (other.members_.contains(element)) continue;
    auto it = other.children_.find(element);
    if (it == other.children_.end()) {
      out.children_.emplace_hint(out.children_.end(), element, child);
      continue;
    }
    FieldSet rest = child.RecursiveDifference(it->second);
    if (!rest.Empty()) out.children_.emplace_hint(out.children_.end(), element, std::move(rest));
  }
  return out;
}

FieldSet FieldSet::WithPrefix(const PathElement& element) const {
  auto it = children_.find(element);
  return it == children_.end() ? FieldSet() : it->second;
}

bool FieldSet::HasChildren(const PathElement& element) const {
  auto it = children_.find(element);
  return it != children_.end() && !it->second.Empty();
}

void FieldSet::Iterate(const std::function<void(const FieldPath&)>& visit) const {
  FieldPath prefix;
  IteratePrefix(*this, prefix, visit);
}

bool FieldSet::operator==(const FieldSet& other) const {
  return members_ == other.members_ && children_ == other.children_;
}

json FieldSet::ToJson() const { return Contents(*this, false); }

Result<FieldSet> FieldSet::FromJson(const json& fields) {
  FieldSet out;
  bool is_member = false, has_children = false;
  if (Status s = ReadFields(fields, out, is_member, has_children); !s.ok()) return s;
  return out;
}

}  // namespace tenure::server
