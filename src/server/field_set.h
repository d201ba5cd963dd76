// FieldSet: a set of field paths stored as a trie (structured-merge-diff's fieldpath.Set), the
// fields one manager owns. Its JSON form is a managedFields entry's fieldsV1: a key per path
// element ("f:spec"), `{}` for a member, the children below it, and "." inside a node that is a
// member and has children.
//
// A node's members and children are kept in PathElement order (ordered containers: building the
// set of a list of N items costs N log N); every operation returns a new set. Not thread-safe
// for writes; const use from many threads is fine.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <span>

#include "server/field_path.h"
#include "tenure/status.h"

namespace tenure::server {

class FieldSet {
 public:
  FieldSet();
  ~FieldSet();
  FieldSet(const FieldSet&);
  FieldSet(FieldSet&&) noexcept;
  FieldSet& operator=(const FieldSet&);
  FieldSet& operator=(FieldSet&&) noexcept;

  // Adds `path` (nothing for an empty path).
  void Insert(std::span<const PathElement> path);
  bool Has(std::span<const PathElement> path) const;
  // No member anywhere below.
  bool Empty() const;

  FieldSet Union(const FieldSet& other) const;
  FieldSet Intersection(const FieldSet& other) const;
  // Members of `other` are removed from this node's members only; its children recursively.
  FieldSet Difference(const FieldSet& other) const;
  // As Difference, and a member of `other` also removes everything below it.
  FieldSet RecursiveDifference(const FieldSet& other) const;
  // The paths below `element`, without it (an empty set when there are none).
  FieldSet WithPrefix(const PathElement& element) const;
  // Whether `element` has paths below it.
  bool HasChildren(const PathElement& element) const;

  // Every member path, this node's members first, then each child's, in order.
  void Iterate(const std::function<void(const FieldPath&)>& visit) const;

  const std::set<PathElement>& members() const { return members_; }
  const std::map<PathElement, FieldSet>& children() const { return children_; }
  // The child set of `element`, created when missing.
  FieldSet& Descend(const PathElement& element);
  void InsertMember(const PathElement& element);

  bool operator==(const FieldSet& other) const;

  // fieldsV1.
  nlohmann::json ToJson() const;
  // BadRequest for a malformed fieldsV1 (not an object, a malformed key).
  static Result<FieldSet> FromJson(const nlohmann::json& fields);

 private:
  std::set<PathElement> members_;
  std::map<PathElement, FieldSet> children_;  // (libstdc++ takes the incomplete value type)
};

}  // namespace tenure::server
