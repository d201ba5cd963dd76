// Shapes from the kinds' descriptions, and the field-set, compare, merge, remove and validation
// walks of server-side apply over JSON values.
#include "server/typed_value.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "api/validation.h"

namespace tenure::server {
namespace {

using api::FieldType;
using nlohmann::json;

// Appends `element` to `path` for the life of the object.
class Descend {
 public:
  Descend(FieldPath& path, PathElement element) : path_(path) {
    path_.push_back(std::move(element));
  }
  ~Descend() { path_.pop_back(); }
  Descend(const Descend&) = delete;
  Descend& operator=(const Descend&) = delete;

 private:
  FieldPath& path_;
};

bool IsEmptyContainer(const json* v) {
  return v == nullptr || v->is_null() || ((v->is_array() || v->is_object()) && v->empty());
}

const json* ListOf(const json* v) { return v != nullptr && v->is_array() ? v : nullptr; }
const json* MapOf(const json* v) { return v != nullptr && v->is_object() ? v : nullptr; }

bool Equal(const json& a, const json& b) { return CompareValues(a, b) == 0; }

// Every key of two objects (either may be null) with its value on each side, null where absent
// (structured-merge-diff's MapZip).
template <typename Visit>
void ZipMaps(const json* lhs, const json* rhs, Visit&& visit) {
  if (lhs != nullptr) {
    for (auto it = lhs->begin(); it != lhs->end(); ++it) {
      const json* r = nullptr;
      if (rhs != nullptr) {
        if (auto f = rhs->find(it.key()); f != rhs->end()) r = &*f;
      }
      visit(it.key(), &*it, r);
    }
  }
  if (rhs != nullptr) {
    for (auto it = rhs->begin(); it != rhs->end(); ++it) {
      if (lhs == nullptr || !lhs->contains(it.key())) visit(it.key(), nullptr, &*it);
    }
  }
}

// The element of an associative list identifying `item`; why not.
Result<PathElement> ItemElement(const Shape& list, const json& item) {
  if (!list.key.empty()) {
    if (item.is_null()) {
      return Status::BadRequest("associative list with keys may not have a null element");
    }
    if (!item.is_object()) {
      return Status::BadRequest("associative list with keys may not have non-map elements");
    }
    auto it = item.find(std::string(list.key));
    if (it == item.end()) {
      return Status::BadRequest(
          "associative list with keys has an element that omits all key "
          "fields [\"" +
          std::string(list.key) + "\"] (and doesn't have default values for any key fields)");
    }
    return PathElement::Key(json{{std::string(list.key), *it}});
  }
  if (item.is_object()) {
    return Status::BadRequest("associative list without keys has an element that's a map type");
  }
  if (item.is_array()) {
    return Status::BadRequest("not supported: associative list with lists as elements");
  }
  if (item.is_null()) {
    return Status::BadRequest(
        "associative list without keys has an element that's an explicit "
        "null");
  }
  return PathElement::Value(item);
}

// ---- ToFieldSet ----

void CollectFields(const Shape& shape, const json& value, FieldPath& path, FieldSet& set) {
  switch (shape.kind) {
    case Shape::Kind::kScalar:
      set.Insert(path);
      return;
    case Shape::Kind::kList: {
      if (shape.atomic) {
        set.Insert(path);
        return;
      }
      if (!value.is_array()) return;
      const Shape element = shape.Element();
      std::vector<std::optional<PathElement>> elements;
      std::set<PathElement> seen, repeated;
      for (const json& item : value) {
        auto e = ItemElement(shape, item);
        elements.push_back(e.ok() ? std::optional<PathElement>(*e) : std::nullopt);
        if (!e.ok()) continue;
        if (!seen.insert(*e).second && repeated.insert(*e).second) {
          Descend d(path, *e);
          set.Insert(path);  // a repeated item is owned whole
        }
      }
      for (size_t i = 0; i < value.size(); ++i) {
        if (!elements[i] || repeated.contains(*elements[i])) continue;
        Descend d(path, *elements[i]);
        CollectFields(element, value[i], path, set);
        set.Insert(path);
      }
      return;
    }
    case Shape::Kind::kStruct:
    case Shape::Kind::kMap: {
      if (shape.atomic) {
        set.Insert(path);
        return;
      }
      if (!value.is_object()) return;
      for (auto it = value.begin(); it != value.end(); ++it) {
        auto child = shape.Child(it.key());
        if (!child) continue;  // never in a validated value
        Descend d(path, PathElement::Field(it.key()));
        CollectFields(*child, *it, path, set);
        if (it->is_null() || (it->is_object() && it->empty()) || shape.kind == Shape::Kind::kMap) {
          set.Insert(path);
        }
      }
      return;
    }
  }
}

// ---- Compare ----

class Comparer {
 public:
  explicit Comparer(Comparison& out) : out_(out) {}

  void Node(const Shape& shape, const json* lhs, const json* rhs, FieldPath& path) {
    bool in_leaf = false;
    switch (shape.kind) {
      case Shape::Kind::kScalar:
        Leaf(lhs, rhs, path, in_leaf);
        break;
      case Shape::Kind::kList: {
        const json* l = ListOf(lhs);
        const json* r = ListOf(rhs);
        if (shape.atomic || (IsEmptyContainer(l) && IsEmptyContainer(r))) {
          Leaf(lhs, rhs, path, in_leaf);
        } else {
          ListItems(shape, l, r, path);
        }
        break;
      }
      case Shape::Kind::kStruct:
      case Shape::Kind::kMap: {
        const json* l = MapOf(lhs);
        const json* r = MapOf(rhs);
        if (shape.atomic || (IsEmptyContainer(l) && IsEmptyContainer(r))) {
          Leaf(lhs, rhs, path, in_leaf);
        } else {
          MapItems(shape, l, r, path);
        }
        break;
      }
    }
    if (!in_leaf) {
      if (lhs == nullptr) {
        out_.added.Insert(path);
      } else if (rhs == nullptr) {
        out_.removed.Insert(path);
      }
    }
  }

 private:
  void Leaf(const json* lhs, const json* rhs, FieldPath& path, bool& in_leaf) {
    in_leaf = true;
    if (lhs == nullptr) {
      out_.added.Insert(path);
    } else if (rhs == nullptr) {
      out_.removed.Insert(path);
    } else if (!Equal(*lhs, *rhs)) {
      out_.modified.Insert(path);
    }
  }

  void MapItems(const Shape& shape, const json* lhs, const json* rhs, FieldPath& path) {
    ZipMaps(lhs, rhs, [&](const std::string& key, const json* l, const json* r) {
      auto child = shape.Child(key);
      if (!child) return;
      Descend d(path, PathElement::Field(key));
      Node(*child, l, r, path);
    });
  }

  // Items grouped by their element: one on each side is compared; repeated ones compare whole.
  void ListItems(const Shape& shape, const json* lhs, const json* rhs, FieldPath& path) {
    struct Group {
      PathElement element;
      std::vector<const json*> left, right;
    };
    std::vector<Group> groups;
    std::map<PathElement, size_t> group_at;
    auto group_of = [&](const PathElement& e) -> Group& {
      auto [it, added] = group_at.emplace(e, groups.size());
      if (added) groups.push_back(Group{e, {}, {}});
      return groups[it->second];
    };
    if (lhs != nullptr) {
      for (const json& item : *lhs) {
        auto e = ItemElement(shape, item);
        if (e.ok()) group_of(*e).left.push_back(&item);
      }
    }
    if (rhs != nullptr) {
      for (const json& item : *rhs) {
        auto e = ItemElement(shape, item);
        if (e.ok()) group_of(*e).right.push_back(&item);
      }
    }
    const Shape element = shape.Element();
    for (const Group& g : groups) {
      Descend d(path, g.element);
      const size_t nl = g.left.size(), nr = g.right.size();
      if (nl <= 1 && nr <= 1) {
        Node(element, nl ? g.left[0] : nullptr, nr ? g.right[0] : nullptr, path);
      } else if (nl >= 2 && nr >= 2) {
        bool same = nl == nr;
        for (size_t i = 0; same && i < nl; ++i) same = Equal(*g.left[i], *g.right[i]);
        if (!same) out_.modified.Insert(path);
      } else if (nl >= 2) {
        if (nr != 0) Node(element, nullptr, g.right[0], path);
        out_.removed.Insert(path);
      } else {
        if (nl != 0) Node(element, g.left[0], nullptr, path);
        out_.added.Insert(path);
      }
    }
  }

  Comparison& out_;
};

// ---- Merge ----

class Merger {
 public:
  // The merged value; nullopt when neither side leaves anything.
  std::optional<json> Node(const Shape& shape, const json* lhs, const json* rhs, FieldPath& path) {
    switch (shape.kind) {
      case Shape::Kind::kScalar:
        return Leaf(lhs, rhs);
      case Shape::Kind::kList: {
        const json* l = ListOf(lhs);
        const json* r = ListOf(rhs);
        if (shape.atomic || (IsEmptyContainer(l) && IsEmptyContainer(r))) return Leaf(lhs, rhs);
        if (l == nullptr && r == nullptr) return std::nullopt;
        return ListItems(shape, l, r, path);
      }
      case Shape::Kind::kStruct:
      case Shape::Kind::kMap: {
        const json* l = MapOf(lhs);
        const json* r = MapOf(rhs);
        if (shape.atomic || (IsEmptyContainer(l) && IsEmptyContainer(r))) return Leaf(lhs, rhs);
        if (l == nullptr && r == nullptr) return std::nullopt;
        json out = json::object();
        ZipMaps(l, r, [&](const std::string& key, const json* lv, const json* rv) {
          auto child = shape.Child(key);
          if (!child) return;
          Descend d(path, PathElement::Field(key));
          if (auto merged = Node(*child, lv, rv, path)) out[key] = std::move(*merged);
        });
        if (out.empty()) return std::nullopt;
        return out;
      }
    }
    return std::nullopt;
  }

  const std::string& error() const { return error_; }

 private:
  static std::optional<json> Leaf(const json* lhs, const json* rhs) {
    if (rhs != nullptr) return *rhs;
    if (lhs != nullptr) return *lhs;
    return std::nullopt;
  }

  struct Indexed {
    std::vector<PathElement> elements;            // in list order
    std::map<PathElement, const json*> observed;  // JSON null: repeated
    const json* Get(const PathElement& e, bool* found = nullptr) const {
      auto it = observed.find(e);
      if (found) *found = it != observed.end();
      return it == observed.end() ? nullptr : it->second;
    }
  };

  bool Index(const Shape& shape, const json* list, bool allow_repeats, Indexed& out,
             const FieldPath& path) {
    if (list == nullptr) return true;
    for (size_t i = 0; i < list->size(); ++i) {
      const json& item = (*list)[i];
      auto e = ItemElement(shape, item);
      if (!e.ok()) {
        if (error_.empty())
          error_ = ToString(path) + ": element " + std::to_string(i) + ": " + e.status().message();
        return false;
      }
      auto [at, added] = out.observed.emplace(*e, &item);
      if (!added) {
        if (!allow_repeats) {
          if (error_.empty()) {
            error_ = ToString(path) + ": duplicate entries for key " + ToString(*e);
          }
          return false;
        }
        at->second = &Null();
      }
      out.elements.push_back(std::move(*e));
    }
    return true;
  }

  static const json& Null() {
    static const json null;
    return null;
  }

  // Items of both lists: lhs's order, with rhs's items placed as rhs orders them.
  std::optional<json> ListItems(const Shape& shape, const json* lhs, const json* rhs,
                                FieldPath& path) {
    Indexed left, right;
    if (!Index(shape, rhs, false, right, path) || !Index(shape, lhs, true, left, path)) {
      return std::nullopt;
    }
    const Shape element = shape.Element();
    json out = json::array();
    auto merge_item = [&](const PathElement& e, const json* l, const json* r) {
      Descend d(path, e);
      if (auto merged = Node(element, l, r, path)) out.push_back(std::move(*merged));
    };
    std::vector<const PathElement*> shared;
    for (const PathElement& e : right.elements) {
      bool found = false;
      left.Get(e, &found);
      if (found) shared.push_back(&e);
    }
    size_t next_shared_at = 0;
    const PathElement* next_shared = shared.empty() ? nullptr : shared[next_shared_at++];
    auto advance_shared = [&] {
      next_shared = next_shared_at < shared.size() ? shared[next_shared_at++] : nullptr;
    };
    std::set<PathElement> merged_right;
    auto in_merged_right = [&](const PathElement& e) { return merged_right.contains(e); };
    const size_t nl = left.elements.size(), nr = right.elements.size();
    for (size_t li = 0, ri = 0; li < nl || ri < nr;) {
      if (li < nl && ri < nr) {
        const PathElement& e = left.elements[li];
        if (e == right.elements[ri]) {
          merged_right.insert(e);
          merge_item(e, left.Get(e), right.Get(e));
          ++li, ++ri;
          advance_shared();
          continue;
        }
        bool in_right = false;
        right.Get(e, &in_right);
        if (in_right && next_shared != nullptr && !(*next_shared == e)) {
          ++li;
          continue;
        }
      }
      if (li < nl) {
        const PathElement& e = left.elements[li];
        bool in_right = false;
        right.Get(e, &in_right);
        if (!in_right) {
          merge_item(e, &(*lhs)[li], nullptr);
          ++li;
          continue;
        }
        if (in_merged_right(e)) ++li;
      }
      if (ri < nr) {
        const PathElement& e = right.elements[ri];
        merged_right.insert(e);
        merge_item(e, left.Get(e), right.Get(e));
        ++ri;
        if (next_shared != nullptr && *next_shared == e) advance_shared();
      }
    }
    if (out.empty()) return std::nullopt;
    return out;
  }

  std::string error_;
};

// ---- RemoveItems ----

json Remove(const Shape& shape, const json& value, const FieldSet& remove) {
  switch (shape.kind) {
    case Shape::Kind::kScalar:
      return value;
    case Shape::Kind::kList: {
      if (!value.is_array() || value.empty() || shape.atomic) return nullptr;
      const Shape element = shape.Element();
      json out = json::array();
      for (const json& item : value) {
        auto e = ItemElement(shape, item);
        if (!e.ok()) {
          out.push_back(item);
          continue;
        }
        if (remove.Has(std::span<const PathElement>(&*e, 1))) continue;
        if (remove.HasChildren(*e)) {
          out.push_back(Remove(element, item, remove.WithPrefix(*e)));
        } else {
          out.push_back(item);
        }
      }
      return out.empty() ? json(nullptr) : out;
    }
    case Shape::Kind::kStruct:
    case Shape::Kind::kMap: {
      if (!value.is_object() || value.empty() || shape.atomic) return nullptr;
      json out = json::object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        const PathElement e = PathElement::Field(it.key());
        if (remove.Has(std::span<const PathElement>(&e, 1))) continue;
        auto child = shape.Child(it.key());
        if (child && remove.HasChildren(e)) {
          out[it.key()] = Remove(*child, *it, remove.WithPrefix(e));
        } else {
          out[it.key()] = *it;
        }
      }
      return out.empty() ? json(nullptr) : out;
    }
  }
  return value;
}

// ---- EnsureNamedFieldsAreMembers ----

FieldSet EnsureMembers(const FieldSet& set, const std::optional<Shape>& shape) {
  FieldSet out;
  for (const PathElement& m : set.members()) out.InsertMember(m);
  for (const auto& [element, below] : set.children()) {
    std::optional<Shape> child;
    if (shape) {
      if (element.type == PathElement::Type::kField &&
          (shape->kind == Shape::Kind::kStruct || shape->kind == Shape::Kind::kMap)) {
        if (shape->Declares(element)) out.InsertMember(element);
        child = shape->Child(element.name);
      } else if (element.type == PathElement::Type::kKey && shape->kind == Shape::Kind::kList) {
        child = shape->Element();
      }
    }
    out.Descend(element) = EnsureMembers(below, child);
  }
  return out;
}

// ---- Validation ----

// Go's %#v of a JSON value inside structured-merge-diff's value wrapper.
std::string GoSyntax(const json& v) {
  if (v.is_string()) return api::GoQuote(v.get_ref<const std::string&>());
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string GoTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::object:
      return "map[string]interface {}";
    case json::value_t::array:
      return "[]interface {}";
    case json::value_t::number_float:
      return "float64";
    default:
      return "int64";
  }
}

class Validator {
 public:
  void Node(const Shape& shape, const json& value, const std::string& path) {
    if (value.is_null()) return;
    switch (shape.kind) {
      case Shape::Kind::kScalar:
        return Scalar(shape.scalar, value, path);
      case Shape::Kind::kList: {
        if (!value.is_array()) {
          return Add(path, "expected list, got &{" + GoSyntax(value) + "}");
        }
        const Shape element = shape.Element();
        std::set<PathElement> seen;
        for (size_t i = 0; i < value.size(); ++i) {
          PathElement e = PathElement::Index(static_cast<int>(i));
          if (shape.associative) {
            auto item = ItemElement(shape, value[i]);
            if (!item.ok()) {
              return Add(path, "element " + std::to_string(i) + ": " + item.status().message());
            }
            e = *item;
            if (!seen.insert(e).second) Add(path, "duplicate entries for key " + ToString(e));
          }
          Node(element, value[i], path + ToString(e));
        }
        return;
      }
      case Shape::Kind::kStruct:
      case Shape::Kind::kMap: {
        if (!value.is_object()) return Add(path, "expected map, got &{" + GoSyntax(value) + "}");
        if (shape.kind == Shape::Kind::kStruct && shape.object != nullptr && shape.object->opaque) {
          return;
        }
        for (auto it = value.begin(); it != value.end(); ++it) {
          auto child = shape.Child(it.key());
          if (!child) {
            Add(path + "." + it.key(), "field not declared in schema");
            return;  // as structured-merge-diff, the first one of a map only
          }
          Node(*child, *it, path + "." + it.key());
        }
        return;
      }
    }
  }

  std::string Message() const {
    if (errors_.size() == 1) return errors_[0];
    std::string out = "errors:";
    for (const std::string& e : errors_) out += "\n  " + e;
    return out;
  }
  bool ok() const { return errors_.empty(); }

 private:
  void Scalar(Shape::Scalar type, const json& v, const std::string& path) {
    switch (type) {
      case Shape::Scalar::kString:
        if (!v.is_string()) {
          Add(path, "expected string, got &value.valueUnstructured{Value:" + GoSyntax(v) + "}");
        }
        return;
      case Shape::Scalar::kNumber:
        if (!v.is_number()) Add(path, "expected numeric (int or float), got " + GoTypeName(v));
        return;
      case Shape::Scalar::kBoolean:
        if (!v.is_boolean()) Add(path, "expected boolean, got &{" + GoSyntax(v) + "}");
        return;
    }
  }

  void Add(const std::string& path, const std::string& message) {
    errors_.push_back(path.empty() ? message : path + ": " + message);
  }

  std::vector<std::string> errors_;
};

}  // namespace

Shape Shape::Of(const api::ObjectDescription& object) {
  Shape s;
  s.kind = Kind::kStruct;
  s.object = &object;
  s.atomic = object.map_type == "atomic" || object.opaque;
  return s;
}

Shape Shape::Of(const api::FieldDescription& field) {
  Shape s;
  switch (field.type) {
    case FieldType::kString:
    case FieldType::kDroppedString:
    case FieldType::kTime:
    case FieldType::kMicroTime:
      s.scalar = Scalar::kString;
      return s;
    case FieldType::kInt32:
    case FieldType::kInt64:
      s.scalar = Scalar::kNumber;
      return s;
    case FieldType::kBool:
      s.scalar = Scalar::kBoolean;
      return s;
    case FieldType::kStringMap:
    case FieldType::kBytesMap:
      s.kind = Kind::kMap;
      return s;
    case FieldType::kObject:
      return Of(*field.object);
    case FieldType::kStringList:
    case FieldType::kObjectList:
      s.kind = Kind::kList;
      if (field.type == FieldType::kObjectList) s.object = field.object;
      if (field.list_type == "set" || field.list_type == "map") {
        s.associative = true;
        if (field.list_type == "map") s.key = field.merge_key;
      } else if (field.list_type.empty() && field.patch_merge) {
        // No list type: a merge patch strategy makes the list associative (kube-openapi's
        // schema conversion).
        s.associative = true;
        s.key = field.merge_key;
      }
      s.atomic = !s.associative;
      return s;
  }
  return s;
}

Shape Shape::Element() const {
  if (kind == Kind::kList && object != nullptr) return Of(*object);
  Shape s;
  s.scalar = Scalar::kString;
  return s;
}

std::optional<Shape> Shape::Child(std::string_view name) const {
  if (kind == Kind::kMap) return Element();
  if (kind != Kind::kStruct || object == nullptr) return std::nullopt;
  const api::FieldDescription* f = object->Find(name);
  if (f == nullptr) return std::nullopt;
  return Of(*f);
}

bool Shape::Declares(const PathElement& element) const {
  return kind == Kind::kStruct && object != nullptr && element.type == PathElement::Type::kField &&
         object->Find(element.name) != nullptr;
}

FieldSet ToFieldSet(const Shape& shape, const json& value) {
  FieldSet set;
  FieldPath path;
  CollectFields(shape, value, path, set);
  return set;
}

Comparison Compare(const Shape& shape, const json& lhs, const json& rhs) {
  Comparison out;
  FieldPath path;
  Comparer(out).Node(shape, &lhs, &rhs, path);
  return out;
}

Result<json> Merge(const Shape& shape, const json& lhs, const json& rhs) {
  Merger merger;
  FieldPath path;
  auto merged = merger.Node(shape, &lhs, &rhs, path);
  if (!merger.error().empty()) return Status::Internal(merger.error());
  return merged ? std::move(*merged) : json(nullptr);
}

json RemoveItems(const Shape& shape, const json& value, const FieldSet& remove) {
  return Remove(shape, value, remove);
}

FieldSet EnsureNamedFieldsAreMembers(const FieldSet& set, const Shape& shape) {
  return EnsureMembers(set, shape);
}

std::string ValidateTyped(const Shape& shape, const json& value) {
  Validator v;
  v.Node(shape, value, "");
  return v.ok() ? std::string() : v.Message();
}

}  // namespace tenure::server
