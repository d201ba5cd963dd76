// ServiceAccount (core/v1): the kind's one description. An identity for applications: the
// TokenRequest subresource issues its tokens (server/token_request.h) and RBAC subjects of kind
// ServiceAccount name it.
#include "api/canonical_json.h"
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/object_meta_validation.h"
#include "api/table.h"

namespace tenure::api::internal {
namespace {

using E = Emit;
using nlohmann::json;

const ObjectDescription& LocalObjectReferenceObject() {
  static const ObjectDescription d{
      .go_name = "LocalObjectReference",
      .doc =
          "LocalObjectReference contains enough information to let you locate the referenced "
          "object inside the same namespace.",
      .fields = {field::String("name", E::kOmitEmpty,
                               "Name of the referent. This field is effectively required, but "
                               "due to backwards compatibility is allowed to be empty. Instances "
                               "of this type with an empty value here are almost certainly "
                               "wrong. More info: https://kubernetes.io/docs/concepts/overview/"
                               "working-with-objects/names/#names")
                     .OpenApiDefault()
                     .Proto(1)},
      .map_type = "atomic"};
  return d;
}

// Protobuf numbers from core/v1 generated.proto.
const ObjectDescription& ServiceAccountObject() {
  static const ObjectDescription d{
      .go_name = "ServiceAccount",
      .doc =
          "ServiceAccount binds together: * a name, understood by users, and perhaps by "
          "peripheral systems, for an identity * a principal that can be authenticated and "
          "authorized * a set of secrets",
      .fields = WithTypeMeta({
          MetadataField(kStandardObjectMeta).Proto(1),
          field::ObjectList("secrets", E::kOmitEmpty, ObjectReferenceObject(),
                            "Secrets is a list of the secrets in the same namespace that pods "
                            "running using this ServiceAccount are allowed to use. More info: "
                            "https://kubernetes.io/docs/concepts/configuration/secret")
              .PatchMerge("name")
              .Proto(2),
          field::ObjectList("imagePullSecrets", E::kOmitEmpty, LocalObjectReferenceObject(),
                            "ImagePullSecrets is a list of references to secrets in the same "
                            "namespace to use for pulling any images in pods that reference "
                            "this ServiceAccount. More info: https://kubernetes.io/docs/"
                            "concepts/containers/images/#specifying-imagepullsecrets-on-a-pod")
              .ListType("atomic")
              .Proto(3),
          field::Bool("automountServiceAccountToken", E::kPointer,
                      "AutomountServiceAccountToken indicates whether pods running as this "
                      "service account should have an API token automatically mounted. Can be "
                      "overridden at the pod level.")
              .Proto(4),
      }),
  };
  return d;
}

// kube's printer: the number of secrets.
json SecretsCell(const json& object, std::chrono::system_clock::time_point) {
  const json& secrets = Sub(object, "secrets");
  return secrets.is_array() ? static_cast<int64_t>(secrets.size()) : int64_t{0};
}

void ValidateServiceAccount(const json& object, FieldErrors& errs) {
  ValidateCoreObjectMeta(Sub(object, "metadata"), true, NameIsDNSSubdomain, errs);
}

void ValidateServiceAccountUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
  ValidateServiceAccount(object, errs);
}

}  // namespace

const KindDescription& ServiceAccountKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "";
    k.versions = {"v1"};
    k.kind = "ServiceAccount";
    k.list_kind = "ServiceAccountList";
    k.resource = "serviceaccounts";
    k.singular = "serviceaccount";
    k.namespaced = true;
    k.short_names = {"sa"};
    k.allow_unconditional_update = true;
    k.allow_create_on_update = false;
    k.verbs = AllVerbs();
    k.subresources = {{"token", "authentication.k8s.io", "v1", "TokenRequest", {"create"}}};
    k.object = &ServiceAccountObject();
    k.list = ListObject(ServiceAccountObject(), k.list_kind,
                        "ServiceAccountList is a list of ServiceAccount objects",
                        "List of ServiceAccounts. More info: https://kubernetes.io/docs/tasks/"
                        "configure-pod-container/configure-service-account/");
    k.columns = {NameColumn(),
                 {.name = "Secrets",
                  .field = "secrets",
                  .description = "Secrets is the list of secrets allowed to be used by pods "
                                 "running using this ServiceAccount.",
                  .cell = SecretsCell},
                 AgeColumn()};
    k.validation = {.create = ValidateServiceAccount, .update = ValidateServiceAccountUpdate};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
