// Tests of the kind descriptions themselves: bindings, column and selector paths, emit rules.
#include "api/description.h"

#include <gtest/gtest.h>

#include <set>
#include <typeindex>

#include "api/meta_descriptions.h"

namespace tenure::api {
namespace {

using nlohmann::json;

// Every object reachable from the kinds, their lists and the machinery's objects.
std::vector<const ObjectDescription*> AllObjects() {
  std::vector<const ObjectDescription*> out;
  std::set<const ObjectDescription*> seen;
  std::vector<const ObjectDescription*> todo = {&StatusObject(),          &DeleteOptionsObject(),
                                                &PatchObject(),           &WatchEventObject(),
                                                &ApiResourceListObject(), &ListMetaObject()};
  for (const KindInfo* kind : AllKinds()) {
    todo.push_back(Describe(*kind).object);
    todo.push_back(&Describe(*kind).list);
  }
  while (!todo.empty()) {
    const ObjectDescription* o = todo.back();
    todo.pop_back();
    if (!seen.insert(o).second) continue;
    out.push_back(o);
    for (const auto& f : o->fields) {
      if (f.object != nullptr) todo.push_back(f.object);
    }
  }
  return out;
}

// The struct an object's bound fields belong to, or nullptr when none is bound.
const std::type_info* Owner(const ObjectDescription& o) {
  for (const auto& f : o.fields) {
    if (f.typed) return f.typed.owner;
  }
  return nullptr;
}

TEST(DescriptionTest, BindingsMatchTheirStructs) {
  for (const ObjectDescription* o : AllObjects()) {
    SCOPED_TRACE(std::string(o->go_name));
    const std::type_info* owner = Owner(*o);
    for (const auto& f : o->fields) {
      if (!f.typed) continue;
      SCOPED_TRACE(std::string(f.name));
      EXPECT_EQ(std::type_index(*f.typed.owner), std::type_index(*owner));
      if (f.type == FieldType::kObject || f.type == FieldType::kObjectList) {
        ASSERT_NE(f.typed.nested, nullptr);
        ASSERT_NE(Owner(*f.object), nullptr);
        EXPECT_EQ(std::type_index(*f.typed.nested), std::type_index(*Owner(*f.object)));
      } else {
        EXPECT_EQ(f.typed.nested, nullptr);
      }
    }
  }
}

TEST(DescriptionTest, FieldNamesAreUnique) {
  for (const ObjectDescription* o : AllObjects()) {
    std::set<std::string_view> names;
    for (const auto& f : o->fields) {
      EXPECT_TRUE(names.insert(f.name).second) << o->go_name << "." << f.name;
    }
  }
}

TEST(DescriptionTest, ProtobufNumbersAreUniqueAndOnFieldsOfTheObjectsThatHaveThem) {
  for (const ObjectDescription* o : AllObjects()) {
    std::set<uint32_t> numbers;
    for (const auto& f : o->fields) {
      if (f.proto == 0) continue;
      EXPECT_TRUE(numbers.insert(f.proto).second) << o->go_name << "." << f.name;
      if (f.type == FieldType::kObject) {
        bool numbered = false;
        for (const auto& nested : f.object->fields) numbered = numbered || nested.proto != 0;
        EXPECT_TRUE(numbered) << o->go_name << "." << f.name << " holds no numbered field";
      }
    }
  }
}

TEST(DescriptionTest, ColumnsAndSelectorsNameFields) {
  for (const KindInfo* kind : AllKinds()) {
    const KindDescription& d = Describe(*kind);
    SCOPED_TRACE(std::string(kind->kind));
    EXPECT_EQ(d.list.go_name, kind->list_kind);
    EXPECT_EQ(d.object->go_name, kind->kind);
    EXPECT_FALSE(kind->verbs.empty());
    if (!kind->stored) {  // a review: create only, nothing to list or update
      EXPECT_EQ(kind->verbs, std::vector<std::string_view>{"create"});
      EXPECT_TRUE(kind->list_kind.empty());
      continue;
    }
    ASSERT_NE(d.validation.create, nullptr);
    ASSERT_NE(d.validation.update, nullptr);
    for (const TableColumn& c : d.columns) {
      const FieldDescription* f = FieldAt(*d.object, c.field);
      ASSERT_NE(f, nullptr) << c.name;
      EXPECT_FALSE(c.description.empty() && f->doc.empty()) << c.name;
    }
    // Selector fields name fields of the form the kind is stored in (events.k8s.io/v1 Events
    // select on core/v1's).
    const KindDescription& stored = Describe(kind->stored_as ? *kind->stored_as : *kind);
    for (const SelectorField& s : d.selector_fields) {
      if (s.value != nullptr) continue;
      EXPECT_NE(FieldAt(*stored.object, s.field.empty() ? s.label : s.field), nullptr) << s.label;
    }
  }
}

TEST(DescriptionTest, FieldAtWalksObjects) {
  const KindDescription& lease = Describe(*FindByKind("coordination.k8s.io", "Lease"));
  ASSERT_NE(FieldAt(*lease.object, "spec.holderIdentity"), nullptr);
  EXPECT_EQ(FieldAt(*lease.object, "spec.holderIdentity")->type, FieldType::kString);
  EXPECT_EQ(FieldAt(*lease.object, "metadata.ownerReferences.uid")->go_type, "types.UID");
  EXPECT_EQ(FieldAt(*lease.object, "spec.nothing"), nullptr);
  EXPECT_EQ(FieldAt(*lease.object, "spec.holderIdentity.x"), nullptr);
}

TEST(DescriptionTest, EmitRules) {
  const FieldDescription omit = field::String("s", Emit::kOmitEmpty, "");
  EXPECT_FALSE(Emitted(omit, ""));
  EXPECT_TRUE(Emitted(omit, "x"));
  EXPECT_TRUE(Emitted(field::String("s", Emit::kPointer, ""), ""));
  EXPECT_FALSE(Emitted(field::Int32("n", Emit::kOmitEmpty, ""), 0));
  EXPECT_TRUE(Emitted(field::Int32("n", Emit::kAlways, ""), 0));
  EXPECT_FALSE(Emitted(field::StringMap("m", Emit::kOmitEmpty, ""), json::object()));
  EXPECT_FALSE(Emitted(field::DroppedString("d", ""), "x"));
  EXPECT_EQ(ZeroValue(field::Time("t", Emit::kAlways, "")), nullptr);
  const KindDescription& candidate = Describe(*FindByKind("coordination.k8s.io", "LeaseCandidate"));
  EXPECT_EQ(ZeroValue(*candidate.object->Find("spec")),
            json({{"leaseName", ""}, {"binaryVersion", ""}, {"strategy", ""}}));
}

}  // namespace
}  // namespace tenure::api
