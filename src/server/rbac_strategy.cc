// The RBAC bindings' strategy: kube's rbac/v1 defaults for the role reference and subjects.
#include "server/rbac_strategy.h"

#include <nlohmann/json.hpp>

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

bool EmptyString(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || !it->is_string() || it->get_ref<const std::string&>().empty();
}

class RbacBindingStrategy final : public KindStrategy {
 public:
  using KindStrategy::KindStrategy;

  void Default(json& object) const override {
    auto ref = object.find("roleRef");
    if (ref != object.end() && ref->is_object() && EmptyString(*ref, "apiGroup")) {
      (*ref)["apiGroup"] = kRbacGroup;
    }
    auto subjects = object.find("subjects");
    if (subjects == object.end() || !subjects->is_array()) return;
    for (json& subject : *subjects) {
      if (!subject.is_object() || !EmptyString(subject, "apiGroup")) continue;
      auto kind = subject.find("kind");
      if (kind == subject.end() || !kind->is_string()) continue;
      if (*kind == "User" || *kind == "Group") subject["apiGroup"] = kRbacGroup;
    }
  }
};

}  // namespace

std::unique_ptr<KindStrategy> MakeRbacBindingStrategy(const api::KindInfo& kind) {
  return std::make_unique<RbacBindingStrategy>(kind);
}

}  // namespace tenure::server
