// Descriptions of ObjectMeta, ListMeta, Time, MicroTime, the TypeMeta fields and "<Kind>List".
#include "api/meta_descriptions.h"
#include "api/types.h"

namespace tenure::api {
namespace {

using E = Emit;

constexpr const char* kApiVersionDoc =
    "APIVersion defines the versioned schema of this representation of an object. Servers should "
    "convert recognized schemas to the latest internal value, and may reject unrecognized values. "
    "More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
constexpr const char* kKindDoc =
    "Kind is a string value representing the REST resource this object represents. Servers may "
    "infer this from the endpoint the client submits requests to. Cannot be updated. In "
    "CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#types-kinds";
constexpr const char* kSelfLinkDoc =
    "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.";

const ObjectDescription& FieldsV1Object() {
  static const ObjectDescription d{
      .go_name = "FieldsV1",
      .openapi_package = kMetaPackage,
      .doc =
          "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\n"
          "Each key is either a '.' representing the field itself, and will always map to an "
          "empty set, or a string representing a sub-field or item. The string will follow one "
          "of these four formats: 'f:<name>', where <name> is the name of a field in a struct, "
          "or key in a map 'v:<value>', where <value> is the exact json formatted value of a "
          "list item 'i:<index>', where <index> is position of a item in a list 'k:<keys>', "
          "where <keys> is a map of  a list item's key fields to their unique values If a key "
          "maps to an empty Fields value, the field that key represents is part of the set.\n\n"
          "The exact format is defined in sigs.k8s.io/structured-merge-diff",
      .opaque = true,
  };
  return d;
}

const ObjectDescription& ManagedFieldsEntryObject() {
  static const ObjectDescription d{
      .go_name = "ManagedFieldsEntry",
      .openapi_package = kMetaPackage,
      .doc =
          "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the "
          "resource that the fieldset applies to.",
      .fields = {
          field::String("manager", E::kOmitEmpty,
                        "Manager is an identifier of the workflow managing these fields."),
          field::String("operation", E::kOmitEmpty,
                        "Operation is the type of operation which lead to this "
                        "ManagedFieldsEntry being created. The only valid values for this field "
                        "are 'Apply' and 'Update'."),
          field::String("apiVersion", E::kOmitEmpty,
                        "APIVersion defines the version of this resource that this field set "
                        "applies to. The format is \"group/version\" just like the top-level "
                        "APIVersion field. It is necessary to track the version of a field set "
                        "because it cannot be automatically converted."),
          field::Time("time", E::kPointer,
                      "Time is the timestamp of when the ManagedFields entry was added. The "
                      "timestamp will also be updated if a field is added, the manager changes "
                      "any of the owned fields value or removes a field. The timestamp does not "
                      "update when a field is removed from the entry because another manager "
                      "took it over."),
          field::String("fieldsType", E::kOmitEmpty,
                        "FieldsType is the discriminator for the different fields format and "
                        "version. There is currently only one possible value: \"FieldsV1\""),
          field::Object("fieldsV1", E::kPointer, FieldsV1Object(),
                        "FieldsV1 holds the first JSON version format as described in the "
                        "\"FieldsV1\" type."),
          field::String("subresource", E::kOmitEmpty,
                        "Subresource is the name of the subresource used to update that object, "
                        "or empty string if the object was updated through the main resource. "
                        "The value of this field is used to distinguish between managers, even "
                        "if they share the same name. For example, a status update will be "
                        "distinct from a regular update using the same manager name. Note that "
                        "the APIVersion field is not related to the Subresource field and it "
                        "always corresponds to the version of the main resource."),
      }};
  return d;
}

const ObjectDescription& OwnerReferenceObject() {
  static const ObjectDescription d{
      .go_name = "OwnerReference",
      .openapi_package = kMetaPackage,
      .doc =
          "OwnerReference contains enough information to let you identify an owning object. "
          "An owning object must be in the same namespace as the dependent, or be "
          "cluster-scoped, so there is no namespace field.",
      .fields =
          {
              field::String("apiVersion", E::kAlways, "API version of the referent.")
                  .Required()
                  .OpenApiDefault()
                  .Bind<&OwnerReference::api_version>(),
              field::String("kind", E::kAlways,
                            "Kind of the referent. More info: "
                            "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                            "api-conventions.md#types-kinds")
                  .Required()
                  .OpenApiDefault()
                  .Bind<&OwnerReference::kind>(),
              field::String("name", E::kAlways,
                            "Name of the referent. More info: "
                            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                            "names#names")
                  .Required()
                  .OpenApiDefault()
                  .Bind<&OwnerReference::name>(),
              field::String("uid", E::kAlways,
                            "UID of the referent. More info: "
                            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                            "names#uids",
                            "types.UID")
                  .Required()
                  .OpenApiDefault()
                  .Bind<&OwnerReference::uid>(),
              field::Bool("controller", E::kPointer,
                          "If true, this reference points to the managing controller.")
                  .Bind<&OwnerReference::controller>(),
              field::Bool("blockOwnerDeletion", E::kPointer,
                          "If true, AND if the owner has the \"foregroundDeletion\" finalizer, "
                          "then the owner cannot be deleted from the key-value store until this "
                          "reference is removed. See "
                          "https://kubernetes.io/docs/concepts/architecture/garbage-collection/"
                          "#foreground-deletion for how the garbage collector interacts with "
                          "this field and enforces the foreground deletion. Defaults to false. "
                          "To set this field, a user needs \"delete\" permission of the owner, "
                          "otherwise 422 (Unprocessable Entity) will be returned.")
                  .Bind<&OwnerReference::block_owner_deletion>(),
          },
      .map_type = "atomic",
  };
  return d;
}

}  // namespace

const ObjectDescription& TimeObject() {
  static const ObjectDescription d{
      .go_name = "Time",
      .openapi_package = kMetaPackage,
      .doc =
          "Time is a wrapper around time.Time which supports correct marshaling to YAML and "
          "JSON.  Wrappers are provided for many of the factory methods that the time "
          "package offers.",
      .openapi_type = "string",
      .openapi_format = "date-time",
  };
  return d;
}

const ObjectDescription& MicroTimeObject() {
  static const ObjectDescription d{
      .go_name = "MicroTime",
      .openapi_package = kMetaPackage,
      .doc = "MicroTime is version of Time with microsecond level precision.",
      .openapi_type = "string",
      .openapi_format = "date-time",
  };
  return d;
}

// The protobuf numbers (apimachinery's meta/v1 generated.proto) are on the fields a client sets
// when it creates an object. The server-owned ones (selfLink 4, uid 5, resourceVersion 6,
// generation 7, creationTimestamp 8, deletionTimestamp 9, deletionGracePeriodSeconds 10,
// managedFields 17) are left out, so a protobuf body does not carry them to the server;
// ownerReferences (13) too, which the clients that send protobuf (kubectl's imperative create)
// never set.
const ObjectDescription& ObjectMetaObject() {
  static const ObjectDescription d{
      .go_name = "ObjectMeta",
      .openapi_package = kMetaPackage,
      .doc =
          "ObjectMeta is metadata that all persisted resources must have, which includes all "
          "objects users must create.",
      .fields = {
          field::String("name", E::kOmitEmpty,
                        "Name must be unique within a namespace. Is required when creating "
                        "resources, although some resources may allow a client to request the "
                        "generation of an appropriate name automatically. Name is primarily "
                        "intended for creation idempotence and configuration definition. Cannot "
                        "be updated. More info: "
                        "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                        "names#names")
              .Proto(1)
              .Bind<&ObjectMeta::name>(),
          field::String("generateName", E::kOmitEmpty,
                        "GenerateName is an optional prefix, used by the server, to generate a "
                        "unique name ONLY IF the Name field has not been provided. If this field "
                        "is used, the name returned to the client will be different than the "
                        "name passed. This value will also be combined with a unique suffix. The "
                        "provided value has the same validation rules as the Name field, and may "
                        "be truncated by the length of the suffix required to make the value "
                        "unique on the server.\n\nIf this field is specified and the generated "
                        "name exists, the server will return a 409.\n\nApplied only if Name is "
                        "not specified. More info: "
                        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                        "api-conventions.md#idempotency")
              .Proto(2)
              .Bind<&ObjectMeta::generate_name>(),
          field::String("namespace", E::kOmitEmpty,
                        "Namespace defines the space within which each name must be unique. An "
                        "empty namespace is equivalent to the \"default\" namespace, but "
                        "\"default\" is the canonical representation. Not all objects are "
                        "required to be scoped to a namespace - the value of this field for "
                        "those objects will be empty.\n\nMust be a DNS_LABEL. Cannot be updated. "
                        "More info: "
                        "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                        "namespaces")
              .Proto(3)
              .Bind<&ObjectMeta::namespace_>(),
          field::DroppedString("selfLink", kSelfLinkDoc),
          field::String("uid", E::kOmitEmpty,
                        "UID is the unique in time and space value for this object. It is "
                        "typically generated by the server on successful creation of a resource "
                        "and is not allowed to change on PUT operations.\n\nPopulated by the "
                        "system. Read-only. More info: "
                        "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                        "names#uids",
                        "types.UID")
              .Bind<&ObjectMeta::uid>(),
          field::String("resourceVersion", E::kOmitEmpty,
                        "An opaque value that represents the internal version of this object "
                        "that can be used by clients to determine when objects have changed. May "
                        "be used for optimistic concurrency, change detection, and the watch "
                        "operation on a resource or set of resources. Clients must treat these "
                        "values as opaque and passed unmodified back to the server. They may "
                        "only be valid for a particular resource or set of resources.\n\n"
                        "Populated by the system. Read-only. Value must be treated as opaque by "
                        "clients and . More info: "
                        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                        "api-conventions.md#concurrency-control-and-consistency")
              .Bind<&ObjectMeta::resource_version>(),
          field::Int64("generation", E::kOmitEmpty,
                       "A sequence number representing a specific generation of the desired "
                       "state. Populated by the system. Read-only.")
              .Bind<&ObjectMeta::generation>(),
          field::Time("creationTimestamp", E::kOmitEmpty,
                      std::string("CreationTimestamp is a timestamp representing the server "
                                  "time when this object was created. It is not guaranteed to "
                                  "be set in happens-before order across separate operations. "
                                  "Clients may not set this value. It is represented in RFC3339 "
                                  "form and is in UTC.\n\nPopulated by the system. Read-only. "
                                  "Null for lists. ") +
                          kMetadataMoreInfo)
              .Bind<&ObjectMeta::creation_timestamp>(),
          field::Time(
              "deletionTimestamp", E::kPointer,
              std::string("DeletionTimestamp is RFC 3339 date and time at which this resource "
                          "will be deleted. This field is set by the server when a graceful "
                          "deletion is requested by the user, and is not directly settable by a "
                          "client. The resource is expected to be deleted (no longer visible "
                          "from resource lists, and not reachable by name) after the time in "
                          "this field, once the finalizers list is empty. As long as the "
                          "finalizers list contains items, deletion is blocked. Once the "
                          "deletionTimestamp is set, this value may not be unset or be set "
                          "further into the future, although it may be shortened or the "
                          "resource may be deleted prior to this time. If not set, graceful "
                          "deletion of the object has not been requested.\n\nPopulated by the "
                          "system when a graceful deletion is requested. Read-only. ") +
                  kMetadataMoreInfo)
              .Bind<&ObjectMeta::deletion_timestamp>(),
          field::Int64("deletionGracePeriodSeconds", E::kPointer,
                       "Number of seconds allowed for this object to gracefully terminate "
                       "before it will be removed from the system. Only set when "
                       "deletionTimestamp is also set. May only be shortened. Read-only.")
              .Bind<&ObjectMeta::deletion_grace_period_seconds>(),
          field::StringMap("labels", E::kOmitEmpty,
                           "Map of string keys and values that can be used to organize and "
                           "categorize (scope and select) objects. May match selectors of "
                           "replication controllers and services. More info: "
                           "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                           "labels")
              .Proto(11)
              .Bind<&ObjectMeta::labels>(),
          field::StringMap("annotations", E::kOmitEmpty,
                           "Annotations is an unstructured key value map stored with a resource "
                           "that may be set by external tools to store and retrieve arbitrary "
                           "metadata. They are not queryable and should be preserved when "
                           "modifying objects. More info: "
                           "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                           "annotations")
              .Proto(12)
              .Bind<&ObjectMeta::annotations>(),
          field::ObjectList("ownerReferences", E::kOmitEmpty, OwnerReferenceObject(),
                            "List of objects depended by this object. If ALL objects in the "
                            "list have been deleted, this object will be garbage collected. If "
                            "this object is managed by a controller, then an entry in this list "
                            "will point to this controller, with the controller field set to "
                            "true. There cannot be more than one managing controller.")
              .ListType("map")
              .PatchMerge("uid")
              .Bind<&ObjectMeta::owner_references>(),
          field::StringList("finalizers", E::kOmitEmpty,
                            "Must be empty before the object is deleted from the registry. Each "
                            "entry is an identifier for the responsible component that will "
                            "remove the entry from the list. If the deletionTimestamp of the "
                            "object is non-nil, entries in this list can only be removed. "
                            "Finalizers may be processed and removed in any order.  Order is NOT "
                            "enforced because it introduces significant risk of stuck "
                            "finalizers. finalizers is a shared field, any actor with permission "
                            "can reorder it. If the finalizer list is processed in order, then "
                            "this can lead to a situation in which the component responsible for "
                            "the first finalizer in the list is waiting for a signal (field "
                            "value, external system, or other) produced by a component "
                            "responsible for a finalizer later in the list, resulting in a "
                            "deadlock. Without enforced ordering finalizers are free to order "
                            "amongst themselves and are not vulnerable to ordering changes in "
                            "the list.")
              .ListType("set")
              .PatchMerge()
              .Proto(14)
              .Bind<&ObjectMeta::finalizers>(),
          field::ObjectList("managedFields", E::kOmitEmpty, ManagedFieldsEntryObject(),
                            "ManagedFields maps workflow-id and version to the set of fields "
                            "that are managed by that workflow. This is mostly for internal "
                            "housekeeping, and users typically shouldn't need to set or "
                            "understand this field. A workflow can be the user's name, a "
                            "controller's name, or the name of a specific apply path like "
                            "\"ci-cd\". The set of fields is always in the version that the "
                            "workflow used when modifying the object.")
              .ListType("atomic"),
      }};
  return d;
}

const ObjectDescription& ListMetaObject() {
  static const ObjectDescription d{
      .go_name = "ListMeta",
      .openapi_package = kMetaPackage,
      .doc =
          "ListMeta describes metadata that synthetic resources must have, including lists "
          "and various status objects. A resource may have only one of {ObjectMeta, "
          "ListMeta}.",
      .fields = {
          field::DroppedString("selfLink", kSelfLinkDoc),
          field::String("resourceVersion", E::kOmitEmpty,
                        "String that identifies the server's internal version of this object "
                        "that can be used by clients to determine when objects have changed. "
                        "Value must be treated as opaque by clients and passed unmodified back "
                        "to the server. Populated by the system. Read-only. More info: "
                        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                        "api-conventions.md#concurrency-control-and-consistency")
              .Bind<&ListMeta::resource_version>(),
          field::String("continue", E::kOmitEmpty,
                        "continue may be set if the user set a limit on the number of items "
                        "returned, and indicates that the server has more data available. The "
                        "value is opaque and may be used to issue another request to the "
                        "endpoint that served this list to retrieve the next set of available "
                        "objects.")
              .Bind<&ListMeta::continue_token>(),
          field::Int64("remainingItemCount", E::kPointer,
                       "remainingItemCount is the number of subsequent items in the list which "
                       "are not included in this list response.")
              .Bind<&ListMeta::remaining_item_count>(),
      }};
  return d;
}

std::vector<FieldDescription> WithTypeMeta(std::vector<FieldDescription> fields) {
  std::vector<FieldDescription> out = {field::DroppedString("apiVersion", kApiVersionDoc),
                                       field::DroppedString("kind", kKindDoc)};
  for (auto& f : fields) out.push_back(std::move(f));
  return out;
}

FieldDescription MetadataField(std::string doc) {
  return field::Object("metadata", E::kAlways, ObjectMetaObject(), std::move(doc)).OpenApiDefault();
}

ObjectDescription ListObject(const ObjectDescription& item, std::string_view list_kind,
                             std::string doc, std::string items_doc) {
  return ObjectDescription{
      .go_name = list_kind,
      .go_package = item.go_package,
      .openapi_package = item.openapi_package,
      .doc = std::move(doc),
      .fields = WithTypeMeta({
          field::Object("metadata", E::kAlways, ListMetaObject(), kStandardListMeta)
              .OpenApiDefault(),
          field::ObjectList("items", E::kAlways, item, std::move(items_doc)).Required(),
      }),
  };
}

}  // namespace tenure::api
