// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding: the kinds'
// descriptions (one per kind over shared PolicyRule / Subject / RoleRef objects) and their Table
// cells as kube-apiserver prints them.
#include <chrono>
#include <ctime>

#include "api/canonical_json.h"
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/table.h"
#include "api/types.h"

namespace tenure::api::internal {
namespace {

using E = Emit;
using nlohmann::json;

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

const ObjectDescription& PolicyRuleObject() {
  static const ObjectDescription d{
      .go_name = "PolicyRule",
      .doc =
          "PolicyRule holds information that describes a policy rule, but does not contain "
          "information about who the rule applies to or which namespace the rule applies to.",
      .fields = {
          field::StringList("verbs", E::kAlways,
                            "Verbs is a list of Verbs that apply to ALL the ResourceKinds "
                            "contained in this rule. '*' represents all verbs.")
              .Required()
              .ListType("atomic")
              .Proto(1)
              .Bind<&PolicyRule::verbs>(),
          field::StringList(
              "apiGroups", E::kOmitEmpty,
              "APIGroups is the name of the APIGroup that contains the resources.  If multiple "
              "API groups are specified, any action requested against one of the enumerated "
              "resources in any API group will be allowed. \"\" represents the core API group "
              "and \"*\" represents all API groups.")
              .ListType("atomic")
              .Proto(2)
              .Bind<&PolicyRule::api_groups>(),
          field::StringList("resources", E::kOmitEmpty,
                            "Resources is a list of resources this rule applies to. '*' "
                            "represents all resources.")
              .ListType("atomic")
              .Proto(3)
              .Bind<&PolicyRule::resources>(),
          field::StringList("resourceNames", E::kOmitEmpty,
                            "ResourceNames is an optional white list of names that the rule "
                            "applies to.  An empty set means that everything is allowed.")
              .ListType("atomic")
              .Proto(4)
              .Bind<&PolicyRule::resource_names>(),
          field::StringList(
              "nonResourceURLs", E::kOmitEmpty,
              "NonResourceURLs is a set of partial urls that a user should have access to.  *s "
              "are allowed, but only as the full, final step in the path Since non-resource "
              "URLs are not namespaced, this field is only applicable for ClusterRoles "
              "referenced from a ClusterRoleBinding. Rules can either apply to API resources "
              "(such as \"pods\" or \"secrets\") or non-resource URL paths (such as \"/api\"),  "
              "but not both.")
              .ListType("atomic")
              .Proto(5)
              .Bind<&PolicyRule::non_resource_urls>(),
      }};
  return d;
}

const ObjectDescription& LabelSelectorRequirementObject() {
  static const ObjectDescription d{
      .go_name = "LabelSelectorRequirement",
      .openapi_package = kMetaPackage,
      .doc =
          "A label selector requirement is a selector that contains values, a key, and an "
          "operator that relates the key and values.",
      .fields = {
          field::String("key", E::kAlways, "key is the label key that the selector applies to.")
              .Required()
              .OpenApiDefault()
              .Proto(1),
          field::String("operator", E::kAlways,
                        "operator represents a key's relationship to a set of values. Valid "
                        "operators are In, NotIn, Exists and DoesNotExist.")
              .Required()
              .OpenApiDefault()
              .Proto(2),
          field::StringList("values", E::kOmitEmpty,
                            "values is an array of string values. If the operator is In or "
                            "NotIn, the values array must be non-empty. If the operator is "
                            "Exists or DoesNotExist, the values array must be empty. This array "
                            "is replaced during a strategic merge patch.")
              .ListType("atomic")
              .Proto(3),
      }};
  return d;
}

const ObjectDescription& LabelSelectorObject() {
  static const ObjectDescription d{
      .go_name = "LabelSelector",
      .openapi_package = kMetaPackage,
      .doc =
          "A label selector is a label query over a set of resources. The result of "
          "matchLabels and matchExpressions are ANDed. An empty label selector matches all "
          "objects. A null label selector matches no objects.",
      .fields =
          {
              field::StringMap(
                  "matchLabels", E::kOmitEmpty,
                  "matchLabels is a map of {key,value} pairs. A single {key,value} in "
                  "the matchLabels map is equivalent to an element of matchExpressions, "
                  "whose key field is \"key\", the operator is \"In\", and the values "
                  "array contains only \"value\". The requirements are ANDed.")
                  .Proto(1),
              field::ObjectList("matchExpressions", E::kOmitEmpty, LabelSelectorRequirementObject(),
                                "matchExpressions is a list of label selector requirements. The "
                                "requirements are ANDed.")
                  .ListType("atomic")
                  .Proto(2),
          },
      .map_type = "atomic"};
  return d;
}

const ObjectDescription& AggregationRuleObject() {
  static const ObjectDescription d{
      .go_name = "AggregationRule",
      .doc =
          "AggregationRule describes how to locate ClusterRoles to aggregate into the "
          "ClusterRole",
      .fields = {
          field::ObjectList("clusterRoleSelectors", E::kOmitEmpty, LabelSelectorObject(),
                            "ClusterRoleSelectors holds a list of selectors which will be used "
                            "to find ClusterRoles and create the rules. If any of the selectors "
                            "match, then the ClusterRole's permissions will be added")
              .ListType("atomic")
              .Proto(1),
      }};
  return d;
}

const ObjectDescription& SubjectObject() {
  static const ObjectDescription d{
      .go_name = "Subject",
      .doc =
          "Subject contains a reference to the object or user identities a role binding "
          "applies to.  This can either hold a direct API object reference, or a value for "
          "non-objects such as user and group names.",
      .fields =
          {
              field::String(
                  "kind", E::kAlways,
                  "Kind of object being referenced. Values defined by this API group are "
                  "\"User\", \"Group\", and \"ServiceAccount\". If the Authorizer does not "
                  "recognized the kind value, the Authorizer should report an error.")
                  .Required()
                  .OpenApiDefault()
                  .Proto(1)
                  .Bind<&Subject::kind>(),
              field::String("apiGroup", E::kOmitEmpty,
                            "APIGroup holds the API group of the referenced subject. Defaults to "
                            "\"\" for ServiceAccount subjects. Defaults to "
                            "\"rbac.authorization.k8s.io\" for User and Group subjects.")
                  .Proto(2)
                  .Bind<&Subject::api_group>(),
              field::String("name", E::kAlways, "Name of the object being referenced.")
                  .Required()
                  .OpenApiDefault()
                  .Proto(3)
                  .Bind<&Subject::name>(),
              field::String("namespace", E::kOmitEmpty,
                            "Namespace of the referenced object.  If the object kind is "
                            "non-namespace, such as \"User\" or \"Group\", and this value is not "
                            "empty the Authorizer should report an error.")
                  .Proto(4)
                  .Bind<&Subject::namespace_>(),
          },
      .map_type = "atomic"};
  return d;
}

const ObjectDescription& RoleRefObject() {
  static const ObjectDescription d{
      .go_name = "RoleRef",
      .doc = "RoleRef contains information that points to the role being used",
      .fields =
          {
              field::String("apiGroup", E::kAlways,
                            "APIGroup is the group for the resource being referenced")
                  .Required()
                  .OpenApiDefault()
                  .Proto(1)
                  .Bind<&RoleRef::api_group>(),
              field::String("kind", E::kAlways, "Kind is the type of resource being referenced")
                  .Required()
                  .OpenApiDefault()
                  .Proto(2)
                  .Bind<&RoleRef::kind>(),
              field::String("name", E::kAlways, "Name is the name of resource being referenced")
                  .Required()
                  .OpenApiDefault()
                  .Proto(3)
                  .Bind<&RoleRef::name>(),
          },
      .map_type = "atomic"};
  return d;
}

FieldDescription RulesField(std::string doc) {
  return field::ObjectList("rules", E::kAlways, PolicyRuleObject(), std::move(doc))
      .ListType("atomic")
      .Proto(2)
      .Bind<&Role::rules>();
}

const ObjectDescription& RoleObject() {
  static const ObjectDescription d{
      .go_name = "Role",
      .doc =
          "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a "
          "unit by a RoleBinding.",
      .fields = WithTypeMeta({
          MetadataField("Standard object's metadata.").Proto(1).Bind<&Role::metadata>(),
          RulesField("Rules holds all the PolicyRules for this Role"),
      }),
  };
  return d;
}

const ObjectDescription& ClusterRoleObject() {
  static const ObjectDescription d{
      .go_name = "ClusterRole",
      .doc =
          "ClusterRole is a cluster level, logical grouping of PolicyRules that can be "
          "referenced as a unit by a RoleBinding or ClusterRoleBinding.",
      .fields = WithTypeMeta({
          MetadataField("Standard object's metadata.").Proto(1).Bind<&Role::metadata>(),
          RulesField("Rules holds all the PolicyRules for this ClusterRole"),
          field::Object("aggregationRule", E::kOmitEmpty, AggregationRuleObject(),
                        "AggregationRule is an optional field that describes how to build the "
                        "Rules for this ClusterRole. If AggregationRule is set, then the Rules "
                        "are controller managed and direct changes to Rules will be stomped by "
                        "the controller.")
              .Proto(3),
      }),
  };
  return d;
}

std::vector<FieldDescription> BindingFields(std::string role_ref_doc) {
  return WithTypeMeta({
      MetadataField("Standard object's metadata.").Proto(1).Bind<&RoleBinding::metadata>(),
      field::ObjectList("subjects", E::kOmitEmpty, SubjectObject(),
                        "Subjects holds references to the objects the role applies to.")
          .ListType("atomic")
          .Proto(2)
          .Bind<&RoleBinding::subjects>(),
      field::Object("roleRef", E::kAlways, RoleRefObject(), std::move(role_ref_doc))
          .Required()
          .OpenApiDefault()
          .Proto(3)
          .Bind<&RoleBinding::role_ref>(),
  });
}

const ObjectDescription& RoleBindingObject() {
  static const ObjectDescription d{
      .go_name = "RoleBinding",
      .doc =
          "RoleBinding references a role, but does not contain it.  It can reference a Role "
          "in the same namespace or a ClusterRole in the global namespace. It adds who "
          "information via Subjects and namespace information by which namespace it exists "
          "in.  RoleBindings in a given namespace only have effect in that namespace.",
      .fields = BindingFields(
          "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
          "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. "
          "This field is immutable."),
  };
  return d;
}

const ObjectDescription& ClusterRoleBindingObject() {
  static const ObjectDescription d{
      .go_name = "ClusterRoleBinding",
      .doc =
          "ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference "
          "a ClusterRole in the global namespace, and adds who information via Subject.",
      .fields = BindingFields(
          "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef "
          "cannot be resolved, the Authorizer must return an error. This field is immutable."),
  };
  return d;
}

// kube's printers: "CREATED AT" is the creation time in RFC 3339; a binding's "ROLE" is
// "<Kind>/<name>"; wide, the subjects by kind ("ServiceAccounts" as "namespace/name").
json CreatedAtCell(const json& object, std::chrono::system_clock::time_point) {
  return json(std::string(StringAtPath(object, "metadata.creationTimestamp")));
}

json RoleCell(const json& object, std::chrono::system_clock::time_point) {
  const json& ref = Sub(object, "roleRef");
  return json(std::string(StringAt(ref, "kind")) + "/" + std::string(StringAt(ref, "name")));
}

std::string SubjectsOfKind(const json& object, std::string_view kind) {
  std::string out;
  const json& subjects = Sub(object, "subjects");
  if (!subjects.is_array()) return out;
  for (const json& s : subjects) {
    if (StringAt(s, "kind") != kind) continue;
    if (!out.empty()) out += ", ";
    if (kind == "ServiceAccount") {
      out += std::string(StringAt(s, "namespace")) + "/";
    }
    out += StringAt(s, "name");
  }
  return out;
}

json UsersCell(const json& o, std::chrono::system_clock::time_point) {
  return SubjectsOfKind(o, "User");
}
json GroupsCell(const json& o, std::chrono::system_clock::time_point) {
  return SubjectsOfKind(o, "Group");
}
json ServiceAccountsCell(const json& o, std::chrono::system_clock::time_point) {
  return SubjectsOfKind(o, "ServiceAccount");
}

std::vector<TableColumn> RoleColumns() {
  return {NameColumn(),
          {.name = "Created At", .field = "metadata.creationTimestamp", .cell = CreatedAtCell}};
}

std::vector<TableColumn> BindingColumns() {
  return {
      NameColumn(),
      {.name = "Role", .field = "roleRef", .cell = RoleCell},
      AgeColumn(),
      {.name = "Users", .field = "subjects", .priority = 1, .cell = UsersCell},
      {.name = "Groups", .field = "subjects", .priority = 1, .cell = GroupsCell},
      {.name = "ServiceAccounts", .field = "subjects", .priority = 1, .cell = ServiceAccountsCell}};
}

KindDescription RbacKind(std::string_view kind, std::string_view resource,
                         std::string_view singular, bool namespaced) {
  KindDescription k;
  k.group = kRbacGroup;
  k.versions = {"v1"};
  k.kind = kind;
  k.resource = resource;
  k.singular = singular;
  k.namespaced = namespaced;
  // As kube-apiserver's RBAC strategies: PUT without resourceVersion is allowed, PUT of a
  // missing object creates it.
  k.allow_unconditional_update = true;
  k.allow_create_on_update = true;
  k.verbs = AllVerbs();
  return k;
}

}  // namespace

const KindDescription& RoleKind() {
  static const KindDescription kind = [] {
    KindDescription k = RbacKind("Role", "roles", "role", true);
    k.list_kind = "RoleList";
    k.object = &RoleObject();
    k.list = ListObject(RoleObject(), k.list_kind, "RoleList is a collection of Roles",
                        "Items is a list of Roles");
    k.columns = RoleColumns();
    k.validation = {.create = ValidateRole, .update = ValidateRoleUpdate};
    return k;
  }();
  return kind;
}

const KindDescription& ClusterRoleKind() {
  static const KindDescription kind = [] {
    KindDescription k = RbacKind("ClusterRole", "clusterroles", "clusterrole", false);
    k.list_kind = "ClusterRoleList";
    k.object = &ClusterRoleObject();
    k.list = ListObject(ClusterRoleObject(), k.list_kind,
                        "ClusterRoleList is a collection of ClusterRoles",
                        "Items is a list of ClusterRoles");
    k.columns = RoleColumns();
    k.validation = {.create = ValidateClusterRole, .update = ValidateClusterRoleUpdate};
    return k;
  }();
  return kind;
}

const KindDescription& RoleBindingKind() {
  static const KindDescription kind = [] {
    KindDescription k = RbacKind("RoleBinding", "rolebindings", "rolebinding", true);
    k.list_kind = "RoleBindingList";
    k.object = &RoleBindingObject();
    k.list = ListObject(RoleBindingObject(), k.list_kind,
                        "RoleBindingList is a collection of RoleBindings",
                        "Items is a list of RoleBindings");
    k.columns = BindingColumns();
    k.validation = {.create = ValidateRoleBinding, .update = ValidateRoleBindingUpdate};
    return k;
  }();
  return kind;
}

const KindDescription& ClusterRoleBindingKind() {
  static const KindDescription kind = [] {
    KindDescription k =
        RbacKind("ClusterRoleBinding", "clusterrolebindings", "clusterrolebinding", false);
    k.list_kind = "ClusterRoleBindingList";
    k.object = &ClusterRoleBindingObject();
    k.list = ListObject(ClusterRoleBindingObject(), k.list_kind,
                        "ClusterRoleBindingList is a collection of ClusterRoleBindings",
                        "Items is a list of ClusterRoleBindings");
    k.columns = BindingColumns();
    k.validation = {.create = ValidateClusterRoleBinding,
                    .update = ValidateClusterRoleBindingUpdate};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
