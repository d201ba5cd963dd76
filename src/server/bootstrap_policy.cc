// The default cluster roles and bindings (kube's bootstrappolicy), and their reconciliation.
#include "server/bootstrap_policy.h"

#include <algorithm>
#include <string>

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr const char* kRbacVersion = "rbac.authorization.k8s.io/v1";
constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";
constexpr const char* kAutoUpdate = "rbac.authorization.kubernetes.io/autoupdate";

const std::vector<std::string> kRead = {"get", "list", "watch"};
const std::vector<std::string> kWrite = {"create", "delete", "deletecollection", "patch", "update"};
const std::vector<std::string> kReadWrite = {"create", "delete", "deletecollection", "get",
                                             "list",   "patch",  "update",           "watch"};

json Rule(std::vector<std::string> groups, std::vector<std::string> resources,
          std::vector<std::string> verbs) {
  return {{"apiGroups", std::move(groups)},
          {"resources", std::move(resources)},
          {"verbs", std::move(verbs)}};
}

json UrlRule(std::vector<std::string> urls, std::vector<std::string> verbs) {
  return {{"nonResourceURLs", std::move(urls)}, {"verbs", std::move(verbs)}};
}

json Metadata(const std::string& name) {
  return {{"name", name},
          {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
          {"annotations", {{kAutoUpdate, "true"}}}};
}

BootstrapObject ClusterRole(const std::string& name, json rules) {
  return {&api::ClusterRoleKind(),
          {{"apiVersion", kRbacVersion},
           {"kind", "ClusterRole"},
           {"metadata", Metadata(name)},
           {"rules", std::move(rules)}}};
}

// A binding of the cluster role of the same name to `subjects` of `kind` (Group or User).
BootstrapObject ClusterRoleBinding(const std::string& name,
                                   const std::vector<std::string>& subjects_of,
                                   const char* kind = "Group") {
  json subjects = json::array();
  for (const std::string& subject : subjects_of) {
    subjects.push_back({{"kind", kind}, {"apiGroup", kRbacGroup}, {"name", subject}});
  }
  return {&api::ClusterRoleBindingKind(),
          {{"apiVersion", kRbacVersion},
           {"kind", "ClusterRoleBinding"},
           {"metadata", Metadata(name)},
           {"roleRef", {{"apiGroup", kRbacGroup}, {"kind", "ClusterRole"}, {"name", name}}},
           {"subjects", std::move(subjects)}}};
}

// A RoleBinding in `ns` of the ClusterRole `name` to the user of that name: the role's rights
// in that namespace only.
BootstrapObject UserRoleBindingIn(const std::string& ns, const std::string& name) {
  json metadata = Metadata(name);
  metadata["namespace"] = ns;
  return {
      &api::RoleBindingKind(),
      {{"apiVersion", kRbacVersion},
       {"kind", "RoleBinding"},
       {"metadata", std::move(metadata)},
       {"roleRef", {{"apiGroup", kRbacGroup}, {"kind", "ClusterRole"}, {"name", name}}},
       {"subjects", json::array({{{"kind", "User"}, {"apiGroup", kRbacGroup}, {"name", name}}})}}};
}

// kube's view, edit and admin as aggregated from system:aggregate-to-{view,edit,admin}, for the
// core and coordination groups (apps, batch and the like are not served here).
json ViewRules() {
  return json::array({
      Rule({""},
           {"configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
            "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
            "services", "services/status"},
           kRead),
      Rule({""},
           {"bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
            "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"},
           kRead),
      Rule({""}, {"namespaces"}, kRead),
  });
}

json EditRules() {
  json rules = ViewRules();
  for (json rule : {
           Rule({""},
                {"pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets",
                 "services/proxy"},
                kRead),
           Rule({""}, {"serviceaccounts"}, {"impersonate"}),
           Rule({""}, {"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"},
                kWrite),
           Rule({""}, {"pods/eviction"}, {"create"}),
           Rule({""},
                {"configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                 "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
                 "services/proxy"},
                kWrite),
           Rule({""}, {"serviceaccounts/token"}, {"create"}),
           Rule({"coordination.k8s.io"}, {"leases"}, kReadWrite),
       }) {
    rules.push_back(std::move(rule));
  }
  return rules;
}

json AdminRules() {
  json rules = EditRules();
  rules.push_back(Rule({"authorization.k8s.io"}, {"localsubjectaccessreviews"}, {"create"}));
  rules.push_back(Rule({"rbac.authorization.k8s.io"}, {"rolebindings", "roles"}, kReadWrite));
  return rules;
}

const std::vector<std::string> kPublicInfo = {"/healthz", "/livez", "/readyz", "/version",
                                              "/version/"};

bool AutoUpdates(const json& stored) {
  auto meta = stored.find("metadata");
  if (meta == stored.end()) return true;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return true;
  auto value = annotations->find(kAutoUpdate);
  return value == annotations->end() || *value != "false";
}

// Appends to stored[key] the elements of desired[key] it lacks; whether it added any.
bool AddMissing(json& stored, const json& desired, const char* key) {
  if (!AutoUpdates(stored)) return false;
  auto wanted = desired.find(key);
  if (wanted == desired.end() || !wanted->is_array()) return false;
  json& have = stored[key];
  if (!have.is_array()) have = json::array();
  bool changed = false;
  for (const json& element : *wanted) {
    if (std::find(have.begin(), have.end(), element) == have.end()) {
      have.push_back(element);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

std::vector<BootstrapObject> BootstrapPolicy() {
  std::vector<std::string> discovery = {"/api",    "/api/*",   "/apis",
                                        "/apis/*", "/openapi", "/openapi/*"};
  for (const char* path : {"/healthz", "/livez", "/readyz", "/version", "/version/"}) {
    discovery.push_back(path);
  }
  std::sort(discovery.begin(), discovery.end());
  return {
      ClusterRole("cluster-admin", json::array({Rule({"*"}, {"*"}, {"*"}), UrlRule({"*"}, {"*"})})),
      ClusterRole("admin", AdminRules()),
      ClusterRole("edit", EditRules()),
      ClusterRole("view", ViewRules()),
      ClusterRole("system:discovery", json::array({UrlRule(discovery, {"get"})})),
      ClusterRole(
          "system:basic-user",
          json::array({Rule({"authorization.k8s.io"},
                            {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}, {"create"}),
                       Rule({"authentication.k8s.io"}, {"selfsubjectreviews"}, {"create"})})),
      ClusterRole("system:public-info-viewer", json::array({UrlRule(kPublicInfo, {"get"})})),
      ClusterRoleBinding("cluster-admin", {"system:masters"}),
      ClusterRoleBinding("system:discovery", {"system:authenticated"}),
      ClusterRoleBinding("system:basic-user", {"system:authenticated"}),
      ClusterRoleBinding("system:public-info-viewer",
                         {"system:authenticated", "system:unauthenticated"}),
      ClusterRole(std::string(kCoordinationControllerUser),
                  json::array({Rule({"coordination.k8s.io"}, {"leases"},
                                    {"create", "get", "list", "update", "watch"}),
                               Rule({"coordination.k8s.io"}, {"leasecandidates"},
                                    {"delete", "get", "list", "update", "watch"}),
                               Rule({""}, {"events"}, {"create", "patch", "update"})})),
      ClusterRoleBinding(std::string(kCoordinationControllerUser),
                         {std::string(kCoordinationControllerUser)}, "User"),
      ClusterRole(std::string(kDashboardReaderUser),
                  json::array({Rule({"coordination.k8s.io"}, {"leases", "leasecandidates"},
                                    {"get", "list", "watch"}),
                               Rule({""}, {"events"}, {"get", "list", "watch"}),
                               UrlRule({"/metrics", "/version"}, {"get"})})),
      ClusterRoleBinding(std::string(kDashboardReaderUser), {std::string(kDashboardReaderUser)},
                         "User"),
      ClusterRole(std::string(kServerIdentityUser),
                  json::array({Rule({"coordination.k8s.io"}, {"leases"},
                                    {"create", "delete", "get", "list", "update"})})),
      // In kube-system only, where the identity Leases are.
      UserRoleBindingIn("kube-system", std::string(kServerIdentityUser)),
      ClusterRole(std::string(kDashboardViewerRole),
                  json::array({UrlRule({"/dashboard", "/dashboard/*"}, {"get"})})),
  };
}

Status EnsureBootstrapPolicy(ResourceApi& resources) {
  for (const BootstrapObject& o : BootstrapPolicy()) {
    const char* key = o.kind == &api::ClusterRoleKind() ? "rules" : "subjects";
    Status s = resources.Reconcile(
        *o.kind, o.object.dump(),
        [key](json& stored, const json& desired) { return AddMissing(stored, desired, key); });
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace tenure::server
