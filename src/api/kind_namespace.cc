// Namespace (core/v1): the kind's one description.
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/table.h"
#include "api/types.h"

namespace tenure::api::internal {
namespace {

using E = Emit;

const ObjectDescription& NamespaceSpecObject() {
  static const ObjectDescription d{
      .go_name = "NamespaceSpec",
      .doc = "NamespaceSpec describes the attributes on a Namespace.",
      .fields = {
          field::StringList("finalizers", E::kOmitEmpty,
                            "Finalizers is an opaque list of values that must be empty to "
                            "permanently remove object from storage. More info: "
                            "https://kubernetes.io/docs/tasks/administer-cluster/namespaces/",
                            "v1.FinalizerName")
              .ListType("atomic")
              .Proto(1)
              .Bind<&NamespaceSpec::finalizers>(),
      }};
  return d;
}

const ObjectDescription& NamespaceConditionObject() {
  static const ObjectDescription d{
      .go_name = "NamespaceCondition",
      .doc = "NamespaceCondition contains details about state of namespace.",
      .fields = {
          field::String("type", E::kAlways, "Type of namespace controller condition.",
                        "v1.NamespaceConditionType")
              .Required()
              .OpenApiDefault(),
          field::String("status", E::kAlways,
                        "Status of the condition, one of True, False, Unknown.",
                        "v1.ConditionStatus")
              .Required()
              .OpenApiDefault(),
          field::Time("lastTransitionTime", E::kOmitEmpty,
                      "Last time the condition transitioned from one status to another."),
          field::String("reason", E::kOmitEmpty,
                        "Unique, one-word, CamelCase reason for the condition's last "
                        "transition."),
          field::String("message", E::kOmitEmpty,
                        "Human-readable message indicating details about last transition."),
      }};
  return d;
}

const ObjectDescription& NamespaceStatusObject() {
  static const ObjectDescription d{
      .go_name = "NamespaceStatus",
      .doc = "NamespaceStatus is information about the current status of a Namespace.",
      .fields = {
          field::String("phase", E::kOmitEmpty,
                        "Phase is the current lifecycle phase of the namespace. More info: "
                        "https://kubernetes.io/docs/tasks/administer-cluster/namespaces/\n\n"
                        "Possible enum values:\n - `\"Active\"` means the namespace is "
                        "available for use in the system\n - `\"Terminating\"` means the "
                        "namespace is undergoing graceful termination",
                        "v1.NamespacePhase")
              .Enum({"Active", "Terminating"})
              .Bind<&NamespaceStatus::phase>(),
          field::ObjectList("conditions", E::kOmitEmpty, NamespaceConditionObject(),
                            "Represents the latest available observations of a namespace's "
                            "current state.")
              .ListType("map")
              .PatchMerge("type"),
      }};
  return d;
}

// Protobuf numbers from core/v1 generated.proto; status (3) is the server's, not read from a body.
const ObjectDescription& NamespaceObject() {
  static const ObjectDescription d{
      .go_name = "Namespace",
      .doc = "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
      .fields = WithTypeMeta({
          MetadataField(kStandardObjectMeta).Proto(1).Bind<&Namespace::metadata>(),
          field::Object("spec", E::kAlways, NamespaceSpecObject(),
                        std::string("Spec defines the behavior of the Namespace. ") + kSpecMoreInfo)
              .OpenApiDefault()
              .Proto(2)
              .Bind<&Namespace::spec>(),
          field::Object(
              "status", E::kAlways, NamespaceStatusObject(),
              std::string("Status describes the current status of a Namespace. ") + kSpecMoreInfo)
              .OpenApiDefault()
              .Bind<&Namespace::status>(),
      }),
  };
  return d;
}

}  // namespace

const KindDescription& NamespaceKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "";
    k.versions = {"v1"};
    k.kind = "Namespace";
    k.list_kind = "NamespaceList";
    k.resource = "namespaces";
    k.singular = "namespace";
    k.namespaced = false;
    k.short_names = {"ns"};
    k.allow_unconditional_update = true;
    k.allow_create_on_update = false;
    // kube-apiserver serves no deletecollection on namespaces.
    k.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
    k.subresources = {{"finalize", {}, {}, {}, {"update"}},
                      {"status", {}, {}, {}, {"get", "patch", "update"}}};
    k.object = &NamespaceObject();
    k.list = ListObject(NamespaceObject(), k.list_kind, "NamespaceList is a list of Namespaces.",
                        "Items is the list of Namespace objects in the list. More info: "
                        "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                        "namespaces/");
    k.columns = {
        NameColumn(),
        {.name = "Status", .field = "status.phase", .description = "The status of the namespace"},
        AgeColumn()};
    k.selector_fields = {{.label = "status.phase"}, {.label = "name", .field = "metadata.name"}};
    k.validation = {.create = ValidateNamespace, .update = ValidateNamespaceUpdate};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
