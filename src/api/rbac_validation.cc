// kube-apiserver's validation of the RBAC kinds (pkg/apis/rbac/validation): rules, subjects, the
// role reference and its immutability, with kube's field paths and messages.
#include <string>
#include <vector>

#include "api/canonical_json.h"
#include "api/kind_validation.h"
#include "api/object_meta_validation.h"

namespace tenure::api::internal {
namespace {

using nlohmann::json;

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

void ValidatePolicyRule(const json& rule, bool namespaced, const std::string& path,
                        FieldErrors& errs) {
  if (StringList(rule, "verbs").empty()) {
    errs.push_back(Required(path + ".verbs", "verbs must contain at least one value"));
  }
  const std::vector<std::string> urls = StringList(rule, "nonResourceURLs");
  const bool has_groups = !StringList(rule, "apiGroups").empty();
  const bool has_resources = !StringList(rule, "resources").empty();
  if (!urls.empty()) {
    if (namespaced) {
      errs.push_back(InvalidRaw(path + ".nonResourceURLs", GoStringSlice(urls),
                                "namespaced rules cannot apply to non-resource URLs"));
    }
    if (has_groups || has_resources || !StringList(rule, "resourceNames").empty()) {
      errs.push_back(
          InvalidRaw(path + ".nonResourceURLs", GoStringSlice(urls),
                     "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return;
  }
  if (!has_groups) {
    errs.push_back(
        Required(path + ".apiGroups", "resource rules must supply at least one api group"));
  }
  if (!has_resources) {
    errs.push_back(
        Required(path + ".resources", "resource rules must supply at least one resource"));
  }
}

void ValidateRules(const json& object, bool namespaced, FieldErrors& errs) {
  const json& rules = Sub(object, "rules");
  if (!rules.is_array()) return;
  for (size_t i = 0; i < rules.size(); ++i) {
    ValidatePolicyRule(rules[i], namespaced, "rules[" + std::to_string(i) + "]", errs);
  }
}

void ValidateAnyRole(const json& object, bool namespaced, FieldErrors& errs) {
  ValidateObjectMeta(Sub(object, "metadata"), namespaced, PathSegmentName, errs);
  ValidateRules(object, namespaced, errs);
}

void ValidateSubject(const json& subject, bool namespaced, const std::string& path,
                     FieldErrors& errs) {
  const std::string_view name = StringAt(subject, "name");
  const std::string_view kind = StringAt(subject, "kind");
  const std::string_view group = StringAt(subject, "apiGroup");
  if (name.empty()) errs.push_back(Required(path + ".name"));
  if (kind == "ServiceAccount") {
    if (!name.empty()) {
      for (auto& msg : NameIsDNSSubdomain(name, false)) {
        errs.push_back(Invalid(path + ".name", name, msg));
      }
    }
    if (!group.empty()) errs.push_back(NotSupported(path + ".apiGroup", group, {""}));
    if (!namespaced && StringAt(subject, "namespace").empty()) {
      errs.push_back(Required(path + ".namespace"));
    }
  } else if (kind == "User" || kind == "Group") {
    if (group != kRbacGroup) errs.push_back(NotSupported(path + ".apiGroup", group, {kRbacGroup}));
  } else {
    errs.push_back(NotSupported(path + ".kind", kind, {"ServiceAccount", "User", "Group"}));
  }
}

// RoleBinding (`namespaced`) or ClusterRoleBinding.
void ValidateAnyBinding(const json& object, bool namespaced, FieldErrors& errs) {
  ValidateObjectMeta(Sub(object, "metadata"), namespaced, PathSegmentName, errs);
  const json& ref = Sub(object, "roleRef");
  const std::string_view group = StringAt(ref, "apiGroup");
  if (group != kRbacGroup) errs.push_back(NotSupported("roleRef.apiGroup", group, {kRbacGroup}));
  const std::string_view kind = StringAt(ref, "kind");
  if (namespaced && kind != "Role" && kind != "ClusterRole") {
    errs.push_back(NotSupported("roleRef.kind", kind, {"Role", "ClusterRole"}));
  } else if (!namespaced && kind != "ClusterRole") {
    errs.push_back(NotSupported("roleRef.kind", kind, {"ClusterRole"}));
  }
  const std::string_view name = StringAt(ref, "name");
  if (name.empty()) {
    errs.push_back(Required("roleRef.name"));
  } else {
    for (auto& msg : PathSegmentName(name, false)) {
      errs.push_back(Invalid("roleRef.name", name, msg));
    }
  }
  const json& subjects = Sub(object, "subjects");
  if (!subjects.is_array()) return;
  for (size_t i = 0; i < subjects.size(); ++i) {
    ValidateSubject(subjects[i], namespaced, "subjects[" + std::to_string(i) + "]", errs);
  }
}

// Go's %#v of the internal rbac.RoleRef, as kube prints the value of "cannot change roleRef".
std::string GoRoleRef(const json& ref) {
  return "rbac.RoleRef{APIGroup:" + GoQuote(StringAt(ref, "apiGroup")) +
         ", Kind:" + GoQuote(StringAt(ref, "kind")) + ", Name:" + GoQuote(StringAt(ref, "name")) +
         "}";
}

void ValidateBindingUpdate(const json& object, const json& old_object, bool namespaced,
                           FieldErrors& errs) {
  ValidateAnyBinding(object, namespaced, errs);
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
  const json& ref = Sub(object, "roleRef");
  const json& old_ref = Sub(old_object, "roleRef");
  for (const char* key : {"apiGroup", "kind", "name"}) {
    if (StringAt(ref, key) != StringAt(old_ref, key)) {
      errs.push_back(InvalidRaw("roleRef", GoRoleRef(ref), "cannot change roleRef"));
      break;
    }
  }
}

}  // namespace

void ValidateRole(const json& object, FieldErrors& errs) { ValidateAnyRole(object, true, errs); }

void ValidateRoleUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateAnyRole(object, true, errs);
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
}

void ValidateClusterRole(const json& object, FieldErrors& errs) {
  ValidateAnyRole(object, false, errs);
}

void ValidateClusterRoleUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateAnyRole(object, false, errs);
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
}

void ValidateRoleBinding(const json& object, FieldErrors& errs) {
  ValidateAnyBinding(object, true, errs);
}

void ValidateRoleBindingUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateBindingUpdate(object, old_object, true, errs);
}

void ValidateClusterRoleBinding(const json& object, FieldErrors& errs) {
  ValidateAnyBinding(object, false, errs);
}

void ValidateClusterRoleBindingUpdate(const json& object, const json& old_object,
                                      FieldErrors& errs) {
  ValidateBindingUpdate(object, old_object, false, errs);
}

}  // namespace tenure::api::internal
