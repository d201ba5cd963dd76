// OpenAPI documents for kubectl: v3 per group-version (schemas, paths), v3 index, v2 fallback.
#include "server/openapi.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tenure::server {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Descriptions shared by many schemas (kube-apiserver's text).

constexpr const char* kApiVersionDesc =
    "APIVersion defines the versioned schema of this representation of an object. Servers should "
    "convert recognized schemas to the latest internal value, and may reject unrecognized values. "
    "More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
constexpr const char* kKindDesc =
    "Kind is a string value representing the REST resource this object represents. Servers may "
    "infer this from the endpoint the client submits requests to. Cannot be updated. In "
    "CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#types-kinds";
constexpr const char* kMetadataMoreInfo =
    "More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
constexpr const char* kStandardObjectMeta =
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
constexpr const char* kStandardListMeta =
    "Standard list metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
constexpr const char* kSpecMoreInfo =
    "More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#spec-and-status";

constexpr const char* kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";

// ---------------------------------------------------------------------------------------------
// Schema builders in kube-apiserver's style.

std::string MetaName(std::string_view type) { return kMeta + std::string(type); }

json Ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }

json Typed(const char* type, const std::string& description) {
  json out = {{"type", type}};
  if (!description.empty()) out["description"] = description;
  return out;
}
json String(const std::string& d) { return Typed("string", d); }
json Bool(const std::string& d) { return Typed("boolean", d); }
json Int32(const std::string& d) {
  json out = Typed("integer", d);
  out["format"] = "int32";
  return out;
}
json Int64(const std::string& d) {
  json out = Typed("integer", d);
  out["format"] = "int64";
  return out;
}
json StringMap(const std::string& d) {
  return {{"type", "object"},
          {"description", d},
          {"additionalProperties", {{"type", "string"}, {"default", ""}}}};
}
json StringList(const std::string& d) {
  return {{"type", "array"}, {"description", d}, {"items", {{"type", "string"}, {"default", ""}}}};
}
// A field holding another schema; `value` fields (not pointers) carry "default": {}.
json Field(const std::string& schema, const std::string& d, bool value = false) {
  json out = {{"allOf", json::array({Ref(schema)})}};
  if (!d.empty()) out["description"] = d;
  if (value) out["default"] = json::object();
  return out;
}
json ListOf(const std::string& schema, const std::string& d) {
  return {{"type", "array"},
          {"description", d},
          {"items", {{"allOf", json::array({Ref(schema)})}, {"default", json::object()}}}};
}
json Object(const std::string& d, json properties, json required = nullptr) {
  json out = {{"type", "object"}, {"description", d}, {"properties", std::move(properties)}};
  if (!required.is_null()) out["required"] = std::move(required);
  return out;
}
json Gvk(std::string_view group, std::string_view version, std::string_view kind) {
  return {{"group", std::string(group)},
          {"version", std::string(version)},
          {"kind", std::string(kind)}};
}

// A top-level kind: apiVersion, kind, metadata + `fields`.
json KindSchema(const std::string& d, std::string_view group, std::string_view version,
                std::string_view kind, const std::string& metadata_desc, json fields,
                json required = nullptr) {
  json properties = {{"apiVersion", String(kApiVersionDesc)},
                     {"kind", String(kKindDesc)},
                     {"metadata", Field(MetaName("ObjectMeta"), metadata_desc, true)}};
  properties.update(fields);
  json out = Object(d, std::move(properties), std::move(required));
  out["x-kubernetes-group-version-kind"] = json::array({Gvk(group, version, kind)});
  return out;
}

json ListSchema(const std::string& d, std::string_view group, std::string_view version,
                std::string_view list_kind, const std::string& item_schema,
                const std::string& items_desc) {
  json out = Object(d,
                    {{"apiVersion", String(kApiVersionDesc)},
                     {"kind", String(kKindDesc)},
                     {"metadata", Field(MetaName("ListMeta"), kStandardListMeta, true)},
                     {"items", ListOf(item_schema, items_desc)}},
                    json::array({"items"}));
  out["x-kubernetes-group-version-kind"] = json::array({Gvk(group, version, list_kind)});
  return out;
}

// ---------------------------------------------------------------------------------------------
// io.k8s.apimachinery.pkg.apis.meta.v1 schemas, present in every document.

void AddMetaSchemas(json& schemas, std::string_view group, std::string_view version) {
  schemas[MetaName("Time")] = {
      {"type", "string"},
      {"format", "date-time"},
      {"description",
       "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  "
       "Wrappers are provided for many of the factory methods that the time package offers."}};
  schemas[MetaName("MicroTime")] = {
      {"type", "string"},
      {"format", "date-time"},
      {"description", "MicroTime is version of Time with microsecond level precision."}};
  schemas[MetaName("FieldsV1")] = {
      {"type", "object"},
      {"description",
       "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach "
       "key is either a '.' representing the field itself, and will always map to an empty set, "
       "or a string representing a sub-field or item. The string will follow one of these four "
       "formats: 'f:<name>', where <name> is the name of a field in a struct, or key in a map "
       "'v:<value>', where <value> is the exact json formatted value of a list item "
       "'i:<index>', where <index> is position of a item in a list 'k:<keys>', where <keys> is "
       "a map of  a list item's key fields to their unique values If a key maps to an empty "
       "Fields value, the field that key represents is part of the set.\n\nThe exact format is "
       "defined in sigs.k8s.io/structured-merge-diff"}};
  schemas[MetaName("ManagedFieldsEntry")] = Object(
      "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource "
      "that the fieldset applies to.",
      {{"apiVersion",
        String("APIVersion defines the version of this resource that this field set applies to. "
               "The format is \"group/version\" just like the top-level APIVersion field. It is "
               "necessary to track the version of a field set because it cannot be "
               "automatically converted.")},
       {"fieldsType",
        String("FieldsType is the discriminator for the different fields format and version. "
               "There is currently only one possible value: \"FieldsV1\"")},
       {"fieldsV1", Field(MetaName("FieldsV1"),
                          "FieldsV1 holds the first JSON version format as described in the "
                          "\"FieldsV1\" type.")},
       {"manager", String("Manager is an identifier of the workflow managing these fields.")},
       {"operation",
        String("Operation is the type of operation which lead to this ManagedFieldsEntry being "
               "created. The only valid values for this field are 'Apply' and 'Update'.")},
       {"subresource",
        String("Subresource is the name of the subresource used to update that object, or empty "
               "string if the object was updated through the main resource. The value of this "
               "field is used to distinguish between managers, even if they share the same "
               "name. For example, a status update will be distinct from a regular update using "
               "the same manager name. Note that the APIVersion field is not related to the "
               "Subresource field and it always corresponds to the version of the main "
               "resource.")},
       {"time", Field(MetaName("Time"),
                      "Time is the timestamp of when the ManagedFields entry was added. The "
                      "timestamp will also be updated if a field is added, the manager changes "
                      "any of the owned fields value or removes a field. The timestamp does not "
                      "update when a field is removed from the entry because another manager "
                      "took it over.")}});

  json owner = Object(
      "OwnerReference contains enough information to let you identify an owning object. An "
      "owning object must be in the same namespace as the dependent, or be cluster-scoped, so "
      "there is no namespace field.",
      {{"apiVersion", String("API version of the referent.")},
       {"blockOwnerDeletion",
        Bool("If true, AND if the owner has the \"foregroundDeletion\" finalizer, then the owner "
             "cannot be deleted from the key-value store until this reference is removed. See "
             "https://kubernetes.io/docs/concepts/architecture/garbage-collection/"
             "#foreground-deletion for how the garbage collector interacts with this field and "
             "enforces the foreground deletion. Defaults to false. To set this field, a user "
             "needs \"delete\" permission of the owner, otherwise 422 (Unprocessable Entity) "
             "will be returned.")},
       {"controller", Bool("If true, this reference points to the managing controller.")},
       {"kind", String("Kind of the referent. More info: "
                       "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                       "api-conventions.md#types-kinds")},
       {"name", String("Name of the referent. More info: "
                       "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                       "names#names")},
       {"uid", String("UID of the referent. More info: "
                      "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                      "names#uids")}},
      json::array({"apiVersion", "kind", "name", "uid"}));
  for (const char* key : {"apiVersion", "kind", "name", "uid"}) {
    owner["properties"][key]["default"] = "";
  }
  owner["x-kubernetes-map-type"] = "atomic";
  schemas[MetaName("OwnerReference")] = owner;

  json finalizers = StringList(
      "Must be empty before the object is deleted from the registry. Each entry is an identifier "
      "for the responsible component that will remove the entry from the list. If the "
      "deletionTimestamp of the object is non-nil, entries in this list can only be removed. "
      "Finalizers may be processed and removed in any order.  Order is NOT enforced because it "
      "introduces significant risk of stuck finalizers. finalizers is a shared field, any actor "
      "with permission can reorder it. If the finalizer list is processed in order, then this "
      "can lead to a situation in which the component responsible for the first finalizer in "
      "the list is waiting for a signal (field value, external system, or other) produced by a "
      "component responsible for a finalizer later in the list, resulting in a deadlock. "
      "Without enforced ordering finalizers are free to order amongst themselves and are not "
      "vulnerable to ordering changes in the list.");
  finalizers["x-kubernetes-list-type"] = "set";
  finalizers["x-kubernetes-patch-strategy"] = "merge";
  json managed_fields = ListOf(
      MetaName("ManagedFieldsEntry"),
      "ManagedFields maps workflow-id and version to the set of fields that are managed by that "
      "workflow. This is mostly for internal housekeeping, and users typically shouldn't need to "
      "set or understand this field. A workflow can be the user's name, a controller's name, or "
      "the name of a specific apply path like \"ci-cd\". The set of fields is always in the "
      "version that the workflow used when modifying the object.");
  managed_fields["x-kubernetes-list-type"] = "atomic";
  json owner_refs = ListOf(
      MetaName("OwnerReference"),
      "List of objects depended by this object. If ALL objects in the list have been deleted, "
      "this object will be garbage collected. If this object is managed by a controller, then an "
      "entry in this list will point to this controller, with the controller field set to true. "
      "There cannot be more than one managing controller.");
  owner_refs["x-kubernetes-list-map-keys"] = json::array({"uid"});
  owner_refs["x-kubernetes-list-type"] = "map";
  owner_refs["x-kubernetes-patch-merge-key"] = "uid";
  owner_refs["x-kubernetes-patch-strategy"] = "merge";

  schemas[MetaName("ObjectMeta")] = Object(
      "ObjectMeta is metadata that all persisted resources must have, which includes all objects "
      "users must create.",
      {{"annotations",
        StringMap("Annotations is an unstructured key value map stored with a resource that may "
                  "be set by external tools to store and retrieve arbitrary metadata. They are "
                  "not queryable and should be preserved when modifying objects. More info: "
                  "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                  "annotations")},
       {"creationTimestamp",
        Field(MetaName("Time"),
              "CreationTimestamp is a timestamp representing the server time when this object "
              "was created. It is not guaranteed to be set in happens-before order across "
              "separate operations. Clients may not set this value. It is represented in "
              "RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for "
              "lists. " +
                  std::string(kMetadataMoreInfo))},
       {"deletionGracePeriodSeconds",
        Int64("Number of seconds allowed for this object to gracefully terminate before it will "
              "be removed from the system. Only set when deletionTimestamp is also set. May only "
              "be shortened. Read-only.")},
       {"deletionTimestamp",
        Field(MetaName("Time"),
              "DeletionTimestamp is RFC 3339 date and time at which this resource will be "
              "deleted. This field is set by the server when a graceful deletion is requested by "
              "the user, and is not directly settable by a client. The resource is expected to "
              "be deleted (no longer visible from resource lists, and not reachable by name) "
              "after the time in this field, once the finalizers list is empty. As long as the "
              "finalizers list contains items, deletion is blocked. Once the deletionTimestamp "
              "is set, this value may not be unset or be set further into the future, although "
              "it may be shortened or the resource may be deleted prior to this time. If not "
              "set, graceful deletion of the object has not been requested.\n\nPopulated by the "
              "system when a graceful deletion is requested. Read-only. " +
                  std::string(kMetadataMoreInfo))},
       {"finalizers", finalizers},
       {"generateName",
        String("GenerateName is an optional prefix, used by the server, to generate a unique "
               "name ONLY IF the Name field has not been provided. If this field is used, the "
               "name returned to the client will be different than the name passed. This value "
               "will also be combined with a unique suffix. The provided value has the same "
               "validation rules as the Name field, and may be truncated by the length of the "
               "suffix required to make the value unique on the server.\n\nIf this field is "
               "specified and the generated name exists, the server will return a 409.\n\n"
               "Applied only if Name is not specified. More info: "
               "https://git.k8s.io/community/contributors/devel/sig-architecture/"
               "api-conventions.md#idempotency")},
       {"generation", Int64("A sequence number representing a specific generation of the "
                            "desired state. Populated by the system. Read-only.")},
       {"labels",
        StringMap("Map of string keys and values that can be used to organize and categorize "
                  "(scope and select) objects. May match selectors of replication controllers "
                  "and services. More info: "
                  "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels")},
       {"managedFields", managed_fields},
       {"name",
        String("Name must be unique within a namespace. Is required when creating resources, "
               "although some resources may allow a client to request the generation of an "
               "appropriate name automatically. Name is primarily intended for creation "
               "idempotence and configuration definition. Cannot be updated. More info: "
               "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")},
       {"namespace",
        String("Namespace defines the space within which each name must be unique. An empty "
               "namespace is equivalent to the \"default\" namespace, but \"default\" is the "
               "canonical representation. Not all objects are required to be scoped to a "
               "namespace - the value of this field for those objects will be empty.\n\nMust be "
               "a DNS_LABEL. Cannot be updated. More info: "
               "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces")},
       {"ownerReferences", owner_refs},
       {"resourceVersion",
        String("An opaque value that represents the internal version of this object that can be "
               "used by clients to determine when objects have changed. May be used for "
               "optimistic concurrency, change detection, and the watch operation on a resource "
               "or set of resources. Clients must treat these values as opaque and passed "
               "unmodified back to the server. They may only be valid for a particular resource "
               "or set of resources.\n\nPopulated by the system. Read-only. Value must be "
               "treated as opaque by clients and . More info: "
               "https://git.k8s.io/community/contributors/devel/sig-architecture/"
               "api-conventions.md#concurrency-control-and-consistency")},
       {"selfLink", String("Deprecated: selfLink is a legacy read-only field that is no longer "
                           "populated by the system.")},
       {"uid",
        String("UID is the unique in time and space value for this object. It is typically "
               "generated by the server on successful creation of a resource and is not allowed "
               "to change on PUT operations.\n\nPopulated by the system. Read-only. More info: "
               "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids")}});

  schemas[MetaName("ListMeta")] = Object(
      "ListMeta describes metadata that synthetic resources must have, including lists and "
      "various status objects. A resource may have only one of {ObjectMeta, ListMeta}.",
      {{"continue",
        String("continue may be set if the user set a limit on the number of items returned, "
               "and indicates that the server has more data available. The value is opaque and "
               "may be used to issue another request to the endpoint that served this list to "
               "retrieve the next set of available objects.")},
       {"remainingItemCount",
        Int64("remainingItemCount is the number of subsequent items in the list which are not "
              "included in this list response.")},
       {"resourceVersion",
        String("String that identifies the server's internal version of this object that can be "
               "used by clients to determine when objects have changed. Value must be treated as "
               "opaque by clients and passed unmodified back to the server. Populated by the "
               "system. Read-only. More info: "
               "https://git.k8s.io/community/contributors/devel/sig-architecture/"
               "api-conventions.md#concurrency-control-and-consistency")},
       {"selfLink", String("Deprecated: selfLink is a legacy read-only field that is no longer "
                           "populated by the system.")}});

  schemas[MetaName("StatusCause")] = Object(
      "StatusCause provides more information about an api.Status failure, including cases when "
      "multiple errors are encountered.",
      {{"field", String("The field of the resource that has caused this error, as named by its "
                        "JSON serialization. May include dot and postfix notation for nested "
                        "attributes. Arrays are zero-indexed.  Fields may appear more than once "
                        "in an array of causes due to fields having multiple errors. Optional.")},
       {"message", String("A human-readable description of the cause of the error.  This field "
                          "may be presented as-is to a reader.")},
       {"reason", String("A machine-readable description of the cause of the error. If this "
                         "value is empty there is no information available.")}});
  json causes = ListOf(MetaName("StatusCause"),
                       "The Causes array includes more details associated with the StatusReason "
                       "failure. Not all StatusReasons may provide detailed causes.");
  causes["x-kubernetes-list-type"] = "atomic";
  schemas[MetaName("StatusDetails")] = Object(
      "StatusDetails is a set of additional properties that MAY be set by the server to provide "
      "additional information about a response. The Reason field of a Status object defines "
      "what attributes will be set. Clients must ignore fields that do not match the defined "
      "type of each attribute, and should assume that any attribute may be empty, invalid, or "
      "under defined.",
      {{"causes", causes},
       {"group", String("The group attribute of the resource associated with the status "
                        "StatusReason.")},
       {"kind", String("The kind attribute of the resource associated with the status "
                       "StatusReason. On some operations may differ from the requested resource "
                       "Kind.")},
       {"name", String("The name attribute of the resource associated with the status "
                       "StatusReason (when there is a single name which can be described).")},
       {"retryAfterSeconds",
        Int32("If specified, the time in seconds before the operation should be retried.")},
       {"uid", String("UID of the resource. (when there is a single resource which can be "
                      "described).")}});
  json status = Object(
      "Status is a return value for calls that don't return other objects.",
      {{"apiVersion", String(kApiVersionDesc)},
       {"code", Int32("Suggested HTTP return code for this status, 0 if not set.")},
       {"details", Field(MetaName("StatusDetails"),
                         "Extended data associated with the reason.  Each reason may define its "
                         "own extended details. This field is optional and the data returned is "
                         "not guaranteed to conform to any schema except that defined by the "
                         "reason type.")},
       {"kind", String(kKindDesc)},
       {"message", String("A human-readable description of the status of this operation.")},
       {"metadata", Field(MetaName("ListMeta"), kStandardListMeta, true)},
       {"reason", String("A machine-readable description of why this operation is in the "
                         "\"Failure\" status. If this value is empty there is no information "
                         "available. A Reason clarifies an HTTP status code but does not "
                         "override it.")},
       {"status", String("Status of the operation. One of: \"Success\" or \"Failure\". " +
                         std::string(kSpecMoreInfo))}});
  status["x-kubernetes-group-version-kind"] = json::array({Gvk("", "v1", "Status")});
  schemas[MetaName("Status")] = status;

  schemas[MetaName("Preconditions")] = Object(
      "Preconditions must be fulfilled before an operation (update, delete, etc.) is carried "
      "out.",
      {{"resourceVersion", String("Specifies the target ResourceVersion")},
       {"uid", String("Specifies the target UID.")}});
  json dry_run = StringList(
      "When present, indicates that modifications should not be persisted. An invalid or "
      "unrecognized dryRun directive will result in an error response and no further processing "
      "of the request. Valid values are: - All: all dry run stages will be processed");
  dry_run["x-kubernetes-list-type"] = "atomic";
  json delete_options = Object(
      "DeleteOptions may be provided when deleting an API object.",
      {{"apiVersion", String(kApiVersionDesc)},
       {"dryRun", dry_run},
       {"gracePeriodSeconds",
        Int64("The duration in seconds before the object should be deleted. Value must be "
              "non-negative integer. The value zero indicates delete immediately. If this value "
              "is nil, the default grace period for the specified type will be used. Defaults "
              "to a per object value if not specified. zero means delete immediately.")},
       {"kind", String(kKindDesc)},
       {"orphanDependents",
        Bool("Deprecated: please use the PropagationPolicy, this field will be deprecated in "
             "1.7. Should the dependent objects be orphaned. If true/false, the \"orphan\" "
             "finalizer will be added to/removed from the object's finalizers list. Either this "
             "field or PropagationPolicy may be set, but not both.")},
       {"preconditions", Field(MetaName("Preconditions"),
                               "Must be fulfilled before a deletion is carried out. If not "
                               "possible, a 409 Conflict status will be returned.")},
       {"propagationPolicy",
        String("Whether and how garbage collection will be performed. Either this field or "
               "OrphanDependents may be set, but not both. The default policy is decided by the "
               "existing finalizer set in the metadata.finalizers and the resource-specific "
               "default policy. Acceptable values are: 'Orphan' - orphan the dependents; "
               "'Background' - allow the garbage collector to delete the dependents in the "
               "background; 'Foreground' - a cascading policy that deletes all dependents in "
               "the foreground.")}});
  json gvks = json::array({Gvk("", "v1", "DeleteOptions")});
  if (!group.empty()) gvks.push_back(Gvk(group, version, "DeleteOptions"));
  delete_options["x-kubernetes-group-version-kind"] = gvks;
  schemas[MetaName("DeleteOptions")] = delete_options;

  schemas[MetaName("Patch")] = {
      {"type", "object"},
      {"description",
       "Patch is provided to give a concrete name and type to the Kubernetes "
       "PATCH request body."}};
  schemas["io.k8s.apimachinery.pkg.runtime.RawExtension"] = {
      {"type", "object"},
      {"description",
       "RawExtension is used to hold extensions in external versions. On the wire it is the "
       "JSON of an embedded object with its own apiVersion and kind."}};
  json watch_event = Object(
      "Event represents a single event to a watched resource.",
      {{"object", Field("io.k8s.apimachinery.pkg.runtime.RawExtension",
                        "Object is:\n * If Type is Added or Modified: the new state of the "
                        "object.\n * If Type is Deleted: the state of the object immediately "
                        "before deletion.\n * If Type is Error: *Status is recommended; other "
                        "types may make sense\n   depending on context.")},
       {"type", {{"type", "string"}, {"default", ""}}}},
      json::array({"type", "object"}));
  json watch_gvks = json::array({Gvk("", "v1", "WatchEvent")});
  if (!group.empty()) watch_gvks.push_back(Gvk(group, version, "WatchEvent"));
  watch_event["x-kubernetes-group-version-kind"] = watch_gvks;
  schemas[MetaName("WatchEvent")] = watch_event;

  json resource = Object(
      "APIResource specifies the name of a resource and whether it is namespaced.",
      {{"categories", StringList("categories is a list of the grouped resources this resource "
                                 "belongs to (e.g. 'all')")},
       {"group", String("group is the preferred group of the resource.  Empty implies the group "
                        "of the containing resource list.")},
       {"kind", String("kind is the kind for the resource (e.g. 'Foo' is the kind for a "
                       "resource 'foo')")},
       {"name", String("name is the plural name of the resource.")},
       {"namespaced", Bool("namespaced indicates if a resource is namespaced or not.")},
       {"shortNames", StringList("shortNames is a list of suggested short names of the "
                                 "resource.")},
       {"singularName",
        String("singularName is the singular name of the resource.  This allows clients to "
               "handle plural and singular opaquely. The singularName is more correct for "
               "reporting status on a single item and both singular and plural are allowed from "
               "the kubectl CLI interface.")},
       {"storageVersionHash",
        String("The hash value of the storage version, the version this resource is converted "
               "to when written to the data store. Value must be treated as opaque by clients. "
               "Only equality comparison on the value is valid.")},
       {"verbs", StringList("verbs is a list of supported kube verbs (this includes get, list, "
                            "watch, create, update, patch, delete, deletecollection, and "
                            "proxy)")},
       {"version", String("version is the preferred version of the resource.  Empty implies the "
                          "version of the containing resource list")}},
      json::array({"name", "singularName", "namespaced", "kind", "verbs"}));
  schemas[MetaName("APIResource")] = resource;
  json resource_list = Object(
      "APIResourceList is a list of APIResource, it is used to expose the name of the resources "
      "supported in a specific group and version, and if the resource is namespaced.",
      {{"apiVersion", String(kApiVersionDesc)},
       {"groupVersion", String("groupVersion is the group and version this APIResourceList is "
                               "for.")},
       {"kind", String(kKindDesc)},
       {"resources", ListOf(MetaName("APIResource"),
                            "resources contains the name of the "
                            "resources and if they are namespaced.")}},
      json::array({"groupVersion", "resources"}));
  resource_list["x-kubernetes-group-version-kind"] =
      json::array({Gvk("", "v1", "APIResourceList")});
  schemas[MetaName("APIResourceList")] = resource_list;
}

// ---------------------------------------------------------------------------------------------
// The kinds' schemas.

// "io.k8s.api.coordination.v1." / "io.k8s.api.core.v1.": Go package of the group-version.
std::string Package(std::string_view group, std::string_view version) {
  std::string name = group.empty() ? "core" : std::string(group.substr(0, group.find('.')));
  return "io.k8s.api." + name + "." + std::string(version) + ".";
}

void AddLease(json& schemas, std::string_view group, std::string_view version) {
  std::string p = Package(group, version);
  schemas[p + "LeaseSpec"] = Object(
      "LeaseSpec is a specification of a Lease.",
      {{"acquireTime",
        Field(MetaName("MicroTime"), "acquireTime is a time when the current lease was acquired.")},
       {"holderIdentity",
        String("holderIdentity contains the identity of the holder of a current lease. If "
               "Coordinated Leader Election is used, the holder identity must be equal to the "
               "elected LeaseCandidate.metadata.name field.")},
       {"leaseDurationSeconds",
        Int32("leaseDurationSeconds is a duration that candidates for a lease need to wait to "
              "force acquire it. This is measured against the time of last observed "
              "renewTime.")},
       {"leaseTransitions", Int32("leaseTransitions is the number of transitions of a lease "
                                  "between holders.")},
       {"preferredHolder",
        String("PreferredHolder signals to a lease holder that the lease has a more optimal "
               "holder and should be given up. This field can only be set if Strategy is also "
               "set.")},
       {"renewTime", Field(MetaName("MicroTime"),
                           "renewTime is a time when the current holder of a lease has last "
                           "updated the lease.")},
       {"strategy",
        String("Strategy indicates the strategy for picking the leader for coordinated leader "
               "election. If the field is not specified, there is no active coordination for "
               "this lease. (Alpha) Using this field requires the CoordinatedLeaderElection "
               "feature gate to be enabled.")}});
  schemas[p + "Lease"] = KindSchema(
      "Lease defines a lease concept.", group, version, "Lease", kMetadataMoreInfo,
      {{"spec", Field(p + "LeaseSpec",
                      "spec contains the specification of the Lease. " + std::string(kSpecMoreInfo),
                      true)}});
  schemas[p + "LeaseList"] =
      ListSchema("LeaseList is a list of Lease objects.", group, version, "LeaseList", p + "Lease",
                 "items is a list of schema "
                 "objects.");
}

void AddLeaseCandidate(json& schemas, std::string_view group, std::string_view version) {
  std::string p = Package(group, version);
  json spec = Object(
      "LeaseCandidateSpec is a specification of a Lease.",
      {{"binaryVersion",
        String("BinaryVersion is the binary version. It must be in a semver format without "
               "leading `v`. This field is required.")},
       {"emulationVersion",
        String("EmulationVersion is the emulation version. It must be in a semver format "
               "without leading `v`. EmulationVersion must be less than or equal to "
               "BinaryVersion. This field is required when strategy is "
               "\"OldestEmulationVersion\"")},
       {"leaseName",
        String("LeaseName is the name of the lease for which this candidate is contending. The "
               "limits on this field are the same as on Lease.name. Multiple lease candidates "
               "may reference the same Lease.name. This field is immutable.")},
       {"pingTime",
        Field(MetaName("MicroTime"),
              "PingTime is the last time that the server has requested the LeaseCandidate to "
              "renew. It is only done during leader election to check if any LeaseCandidates "
              "have become ineligible. When PingTime is updated, the LeaseCandidate will respond "
              "by updating RenewTime.")},
       {"renewTime",
        Field(MetaName("MicroTime"),
              "RenewTime is the time that the LeaseCandidate was last updated. Any time a Lease "
              "needs to do leader election, the PingTime field is updated to signal to the "
              "LeaseCandidate that they should update the RenewTime. Old LeaseCandidate objects "
              "are also garbage collected if it has been hours since the last renew. The "
              "PingTime field is updated regularly to prevent garbage collection for still "
              "active LeaseCandidates.")},
       {"strategy",
        String("Strategy is the strategy that coordinated leader election will use for picking "
               "the leader. If multiple candidates for the same Lease return different "
               "strategies, the strategy provided by the candidate with the latest BinaryVersion "
               "will be used. If there is still conflict, this is a user error and coordinated "
               "leader election will not operate the Lease until resolved.")}},
      json::array({"leaseName", "binaryVersion", "strategy"}));
  for (const char* key : {"binaryVersion", "leaseName", "strategy"}) {
    spec["properties"][key]["default"] = "";
  }
  schemas[p + "LeaseCandidateSpec"] = spec;
  schemas[p + "LeaseCandidate"] = KindSchema(
      "LeaseCandidate defines a candidate for a Lease object. Candidates are created such that "
      "coordinated leader election will pick the best leader from the list of candidates.",
      group, version, "LeaseCandidate",
      "metadata is the standard object's metadata. " + std::string(kMetadataMoreInfo),
      {{"spec", Field(p + "LeaseCandidateSpec",
                      "spec contains the specification of the Lease. " + std::string(kSpecMoreInfo),
                      true)}});
  schemas[p + "LeaseCandidateList"] =
      ListSchema("LeaseCandidateList is a list of Lease objects.", group, version,
                 "LeaseCandidateList", p + "LeaseCandidate", "items is a list of schema objects.");
}

void AddConfigMap(json& schemas, std::string_view group, std::string_view version) {
  std::string p = Package(group, version);
  json binary = {{"type", "object"},
                 {"description",
                  "BinaryData contains the binary data. Each key must consist of alphanumeric "
                  "characters, '-', '_' or '.'. BinaryData can contain byte sequences that are "
                  "not in the UTF-8 range. The keys stored in BinaryData must not overlap with "
                  "the ones in the Data field, this is enforced during validation process. Using "
                  "this field will require 1.10+ apiserver and kubelet."},
                 {"additionalProperties", {{"type", "string"}, {"format", "byte"}}}};
  schemas[p + "ConfigMap"] = KindSchema(
      "ConfigMap holds configuration data for pods to consume.", group, version, "ConfigMap",
      kStandardObjectMeta,
      {{"binaryData", binary},
       {"data", StringMap("Data contains the configuration data. Each key must consist of "
                          "alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte "
                          "sequences must use the BinaryData field. The keys stored in Data must "
                          "not overlap with the keys in the BinaryData field, this is enforced "
                          "during validation process.")},
       {"immutable",
        Bool("Immutable, if set to true, ensures that data stored in the ConfigMap cannot be "
             "updated (only object metadata can be modified). If not set to true, the field can "
             "be modified at any time. Defaulted to nil.")}});
  schemas[p + "ConfigMapList"] =
      ListSchema("ConfigMapList is a resource containing a list of ConfigMap objects.", group,
                 version, "ConfigMapList", p + "ConfigMap", "Items is the list of ConfigMaps.");
}

void AddNamespace(json& schemas, std::string_view group, std::string_view version) {
  std::string p = Package(group, version);
  json finalizers = StringList(
      "Finalizers is an opaque list of values that must be empty to permanently remove object "
      "from storage. More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/");
  finalizers["x-kubernetes-list-type"] = "atomic";
  schemas[p + "NamespaceSpec"] = Object("NamespaceSpec describes the attributes on a Namespace.",
                                        {{"finalizers", finalizers}});
  json conditions = ListOf(p + "NamespaceCondition",
                           "Represents the latest available observations of a namespace's "
                           "current state.");
  conditions["x-kubernetes-list-map-keys"] = json::array({"type"});
  conditions["x-kubernetes-list-type"] = "map";
  conditions["x-kubernetes-patch-merge-key"] = "type";
  conditions["x-kubernetes-patch-strategy"] = "merge";
  json phase = String(
      "Phase is the current lifecycle phase of the namespace. More info: "
      "https://kubernetes.io/docs/tasks/administer-cluster/namespaces/\n\nPossible enum "
      "values:\n - `\"Active\"` means the namespace is available for use in the system\n - "
      "`\"Terminating\"` means the namespace is undergoing graceful termination");
  phase["enum"] = json::array({"Active", "Terminating"});
  schemas[p + "NamespaceStatus"] =
      Object("NamespaceStatus is information about the current status of a Namespace.",
             {{"conditions", conditions}, {"phase", phase}});
  json condition = Object(
      "NamespaceCondition contains details about state of namespace.",
      {{"lastTransitionTime", Field(MetaName("Time"),
                                    "Last time the condition transitioned "
                                    "from one status to another.")},
       {"message", String("Human-readable message indicating details about last transition.")},
       {"reason", String("Unique, one-word, CamelCase reason for the condition's last "
                         "transition.")},
       {"status", String("Status of the condition, one of True, False, Unknown.")},
       {"type", String("Type of namespace controller condition.")}},
      json::array({"type", "status"}));
  condition["properties"]["status"]["default"] = "";
  condition["properties"]["type"]["default"] = "";
  schemas[p + "NamespaceCondition"] = condition;
  schemas[p + "Namespace"] = KindSchema(
      "Namespace provides a scope for Names. Use of multiple namespaces is optional.", group,
      version, "Namespace", kStandardObjectMeta,
      {{"spec",
        Field(p + "NamespaceSpec",
              "Spec defines the behavior of the Namespace. " + std::string(kSpecMoreInfo), true)},
       {"status",
        Field(p + "NamespaceStatus",
              "Status describes the current status of a Namespace. " + std::string(kSpecMoreInfo),
              true)}});
  schemas[p + "NamespaceList"] = ListSchema(
      "NamespaceList is a list of Namespaces.", group, version, "NamespaceList", p + "Namespace",
      "Items is the list of Namespace objects in the list. More info: "
      "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/");
}

void AddEvent(json& schemas, std::string_view group, std::string_view version) {
  std::string p = Package(group, version);
  json reference = Object(
      "ObjectReference contains enough information to let you inspect or modify the referred "
      "object.",
      {{"apiVersion", String("API version of the referent.")},
       {"fieldPath",
        String("If referring to a piece of an object instead of an entire object, this string "
               "should contain a valid JSON/Go field access statement, such as "
               "desiredState.manifest.containers[2]. For example, if the object reference is to "
               "a container within a pod, this would take on a value like: "
               "\"spec.containers{name}\" (where \"name\" refers to the name of the container "
               "that triggered the event) or if no container name is specified "
               "\"spec.containers[2]\" (container with index 2 in this pod). This syntax is "
               "chosen only to have some well-defined way of referencing a part of an object.")},
       {"kind", String("Kind of the referent. More info: "
                       "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                       "api-conventions.md#types-kinds")},
       {"name", String("Name of the referent. More info: "
                       "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                       "names/#names")},
       {"namespace", String("Namespace of the referent. More info: "
                            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                            "namespaces/")},
       {"resourceVersion",
        String("Specific resourceVersion to which this reference is made, if any. More info: "
               "https://git.k8s.io/community/contributors/devel/sig-architecture/"
               "api-conventions.md#concurrency-control-and-consistency")},
       {"uid", String("UID of the referent. More info: "
                      "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                      "names/#uids")}});
  reference["x-kubernetes-map-type"] = "atomic";
  schemas[p + "ObjectReference"] = reference;
  schemas[p + "EventSource"] =
      Object("EventSource contains information for an event.",
             {{"component", String("Component from which the event is generated.")},
              {"host", String("Node name on which the event is generated.")}});
  schemas[p + "EventSeries"] = Object(
      "EventSeries contain information on series of events, i.e. thing that was/is happening "
      "continuously for some time.",
      {{"count", Int32("Number of occurrences in this series up to the last heartbeat time")},
       {"lastObservedTime", Field(MetaName("MicroTime"), "Time of the last occurrence observed")}});
  schemas[p + "Event"] = KindSchema(
      "Event is a report of an event somewhere in the cluster.  Events have a limited retention "
      "time and triggers and messages may evolve with time.  Event consumers should not rely on "
      "the timing of an event with a given Reason reflecting a consistent underlying trigger, or "
      "the continued existence of events with that Reason.  Events should be treated as "
      "informative, best-effort, supplemental data.",
      group, version, "Event", kStandardObjectMeta,
      {{"action", String("What action was taken/failed regarding to the Regarding object.")},
       {"count", Int32("The number of times this event has occurred.")},
       {"eventTime", Field(MetaName("MicroTime"), "Time when this Event was first observed.")},
       {"firstTimestamp", Field(MetaName("Time"),
                                "The time at which the event was first "
                                "recorded. (Time of server receipt is in "
                                "TypeMeta.)")},
       {"involvedObject",
        Field(p + "ObjectReference", "The object that this event is about.", true)},
       {"lastTimestamp", Field(MetaName("Time"),
                               "The time at which the most recent occurrence "
                               "of this event was recorded.")},
       {"message", String("A human-readable description of the status of this operation.")},
       {"reason", String("This should be a short, machine understandable string that gives the "
                         "reason for the transition into the object's current status.")},
       {"related", Field(p + "ObjectReference",
                         "Optional secondary object for more complex "
                         "actions.")},
       {"reportingComponent", String("Name of the controller that emitted this Event, e.g. "
                                     "`kubernetes.io/kubelet`.")},
       {"reportingInstance", String("ID of the controller instance, e.g. `kubelet-xyzf`.")},
       {"series", Field(p + "EventSeries",
                        "Data about the Event series this event represents "
                        "or nil if it's a singleton Event.")},
       {"source", Field(p + "EventSource",
                        "The component reporting this event. Should be a "
                        "short machine understandable string.",
                        true)},
       {"type", String("Type of this event (Normal, Warning), new types could be added in the "
                       "future")}},
      json::array({"metadata", "involvedObject"}));
  schemas[p + "EventList"] = ListSchema("EventList is a list of events.", group, version,
                                        "EventList", p + "Event", "List of events");
}

// A kind tenure serves but has no schema text for: an open object, so the document stays valid.
void AddGeneric(json& schemas, const api::KindInfo& kind, std::string_view version) {
  std::string p = Package(kind.group, version);
  json object = KindSchema(std::string(kind.kind) + " object.", kind.group, version, kind.kind,
                           kStandardObjectMeta, json::object());
  object["x-kubernetes-preserve-unknown-fields"] = true;
  schemas[p + std::string(kind.kind)] = object;
  schemas[p + std::string(kind.list_kind)] = ListSchema(
      std::string(kind.list_kind) + " is a list of " + std::string(kind.kind) + " objects.",
      kind.group, version, kind.list_kind, p + std::string(kind.kind),
      "items is a list of objects.");
}

void AddKind(json& schemas, const api::KindInfo& kind, std::string_view version) {
  if (kind.group == "coordination.k8s.io" && kind.kind == "Lease") {
    AddLease(schemas, kind.group, version);
  } else if (kind.group == "coordination.k8s.io" && kind.kind == "LeaseCandidate") {
    AddLeaseCandidate(schemas, kind.group, version);
  } else if (kind.group.empty() && kind.kind == "ConfigMap") {
    AddConfigMap(schemas, kind.group, version);
  } else if (kind.group.empty() && kind.kind == "Namespace") {
    AddNamespace(schemas, kind.group, version);
  } else if (kind.group.empty() && kind.kind == "Event") {
    AddEvent(schemas, kind.group, version);
  } else {
    AddGeneric(schemas, kind, version);
  }
}

// ---------------------------------------------------------------------------------------------
// Paths.

json QueryParam(const char* name, const char* description, const char* type = "string") {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", type}, {"uniqueItems", true}}}};
}

json PathParam(const char* name, const std::string& description) {
  return {{"name", name},
          {"in", "path"},
          {"required", true},
          {"description", description},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

json Pretty() {
  return QueryParam("pretty",
                    "If 'true', then the output is pretty printed. Defaults to 'false' unless the "
                    "user-agent indicates a browser or command-line HTTP tool (curl and wget).");
}
json DryRun() {
  return QueryParam("dryRun",
                    "When present, indicates that modifications should not be persisted. An "
                    "invalid or unrecognized dryRun directive will result in an error response "
                    "and no further processing of the request. Valid values are: - All: all dry "
                    "run stages will be processed");
}
json FieldManager(bool patch) {
  return QueryParam(
      "fieldManager",
      patch ? "fieldManager is a name associated with the actor or entity that is making these "
              "changes. The value must be less than or 128 characters long, and only contain "
              "printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint. "
              "This field is required for apply requests (application/apply-patch) but optional "
              "for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch)."
            : "fieldManager is a name associated with the actor or entity that is making these "
              "changes. The value must be less than or 128 characters long, and only contain "
              "printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.");
}
json FieldValidation() {
  return QueryParam(
      "fieldValidation",
      "fieldValidation instructs the server on how to handle objects in the request "
      "(POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This "
      "will ignore any unknown fields that are silently dropped from the object, and will ignore "
      "all but the last duplicate field that the decoder encounters. This is the default "
      "behavior prior to v1.23. - Warn: This will send a warning via the standard warning "
      "response header for each unknown field that is dropped from the object, and for each "
      "duplicate field that is encountered. The request will still succeed if there are no "
      "other errors, and will only persist the last of any duplicate fields. This is the "
      "default in v1.23+ - Strict: This will fail the request with a BadRequest error if any "
      "unknown fields would be dropped from the object, or if any duplicate fields are present. "
      "The error returned from the server will contain all unknown and duplicate fields "
      "encountered.");
}

json ListParams() {
  return json::array({
      QueryParam("allowWatchBookmarks",
                 "allowWatchBookmarks requests watch events with type \"BOOKMARK\". Servers that "
                 "do not implement bookmarks may ignore this flag and bookmarks are sent at the "
                 "server's discretion.",
                 "boolean"),
      QueryParam("continue",
                 "The continue option should be set when retrieving more results from the "
                 "server. Since this value is server defined, clients may only use the continue "
                 "value from a previous query result with identical query parameters (except "
                 "for the value of continue)."),
      QueryParam("fieldSelector",
                 "A selector to restrict the list of returned objects by their "
                 "fields. Defaults to everything."),
      QueryParam("labelSelector",
                 "A selector to restrict the list of returned objects by their "
                 "labels. Defaults to everything."),
      QueryParam("limit",
                 "limit is a maximum number of responses to return for a list call. If more "
                 "items exist, the server will set the `continue` field on the list metadata to "
                 "a value that can be used with the same initial query to retrieve the next set "
                 "of results.",
                 "integer"),
      QueryParam("resourceVersion",
                 "resourceVersion sets a constraint on what resource versions a request may be "
                 "served from. See "
                 "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions "
                 "for details.\n\nDefaults to unset"),
      QueryParam("resourceVersionMatch",
                 "resourceVersionMatch determines how resourceVersion is applied to list calls. "
                 "It is highly recommended that resourceVersionMatch be set for list calls "
                 "where resourceVersion is set See "
                 "https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions "
                 "for details.\n\nDefaults to unset"),
      QueryParam("sendInitialEvents",
                 "`sendInitialEvents=true` may be set together with `watch=true`. In that case, "
                 "the watch stream will begin with synthetic events to produce the current state "
                 "of objects in the collection.",
                 "boolean"),
      QueryParam("timeoutSeconds",
                 "Timeout for the list/watch call. This limits the duration of the call, "
                 "regardless of any activity or inactivity.",
                 "integer"),
      QueryParam("watch",
                 "Watch for changes to the described resources and return them as a stream of "
                 "add, update, and remove notifications. Specify resourceVersion.",
                 "boolean"),
  });
}

json DeleteParams() {
  return json::array({
      DryRun(),
      QueryParam("gracePeriodSeconds",
                 "The duration in seconds before the object should be deleted. Value must be "
                 "non-negative integer. The value zero indicates delete immediately. If this "
                 "value is nil, the default grace period for the specified type will be used. "
                 "Defaults to a per object value if not specified. zero means delete "
                 "immediately.",
                 "integer"),
      QueryParam("orphanDependents",
                 "Deprecated: please use the PropagationPolicy, this field will be deprecated in "
                 "1.7. Should the dependent objects be orphaned. If true/false, the \"orphan\" "
                 "finalizer will be added to/removed from the object's finalizers list. Either "
                 "this field or PropagationPolicy may be set, but not both.",
                 "boolean"),
      QueryParam("propagationPolicy",
                 "Whether and how garbage collection will be performed. Either this field or "
                 "OrphanDependents may be set, but not both. The default policy is decided by "
                 "the existing finalizer set in the metadata.finalizers and the "
                 "resource-specific default policy. Acceptable values are: 'Orphan' - orphan the "
                 "dependents; 'Background' - allow the garbage collector to delete the "
                 "dependents in the background; 'Foreground' - a cascading policy that deletes "
                 "all dependents in the foreground."),
  });
}

json Content(const std::string& schema, bool watch = false) {
  json content = {{"application/json", {{"schema", Ref(schema)}}},
                  {"application/yaml", {{"schema", Ref(schema)}}}};
  if (watch) content["application/json;stream=watch"] = {{"schema", Ref(schema)}};
  return content;
}

json Responses(std::initializer_list<std::pair<const char*, const std::string*>> codes,
               bool watch = false) {
  static const std::map<std::string, std::string> kText = {
      {"200", "OK"}, {"201", "Created"}, {"202", "Accepted"}};
  json out = {{"401", {{"description", "Unauthorized"}}}};
  for (const auto& [code, schema] : codes) {
    out[code] = {{"description", kText.at(code)}, {"content", Content(*schema, watch)}};
  }
  return out;
}

// "CoordinationV1beta1" / "CoreV1": the group-version part of kube's operation ids.
std::string OperationGroup(std::string_view group, std::string_view version) {
  std::string name = group.empty() ? "core" : std::string(group.substr(0, group.find('.')));
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  std::string v(version);
  v[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(v[0])));
  return name + v;
}

// "a " or "an ", as kube's operation descriptions ("create a Lease", "create an Event").
std::string Article(std::string_view noun) {
  char c =
      noun.empty() ? 'x' : static_cast<char>(std::tolower(static_cast<unsigned char>(noun[0])));
  return std::string_view("aeiou").find(c) != std::string_view::npos ? "an " : "a ";
}

std::string Tag(std::string_view group, std::string_view version) {
  std::string name = group.empty() ? "core" : std::string(group.substr(0, group.find('.')));
  return name + "_" + std::string(version);
}

void AddPaths(json& paths, const api::KindInfo& kind, std::string_view version) {
  const std::string_view group = kind.group;
  const std::string prefix =
      group.empty() ? "/api/v1" : "/apis/" + std::string(group) + "/" + std::string(version);
  const std::string p = Package(group, version);
  const std::string object = p + std::string(kind.kind);
  const std::string list = p + std::string(kind.list_kind);
  const std::string status = MetaName("Status");
  const std::string patch = MetaName("Patch");
  const std::string delete_options = MetaName("DeleteOptions");
  const std::string og = OperationGroup(group, version);
  const std::string scope = kind.namespaced ? "Namespaced" : "";
  const std::string k(kind.kind);
  const json tags = json::array({Tag(group, version)});
  const json gvk = Gvk(group, version, kind.kind);
  const std::string resource(kind.resource);

  auto op = [&](const char* action, const std::string& description, const std::string& id) {
    return json{{"description", description},
                {"operationId", id},
                {"tags", tags},
                {"x-kubernetes-action", action},
                {"x-kubernetes-group-version-kind", gvk}};
  };
  auto body = [&](json content) {
    return json{{"required", true}, {"content", std::move(content)}};
  };

  json namespace_param = PathParam("namespace",
                                   "object name and auth scope, such as for teams "
                                   "and projects");
  json name_param = PathParam("name", "name of the " + k);

  // Collection.
  json collection = {{"parameters", kind.namespaced ? json::array({namespace_param, Pretty()})
                                                    : json::array({Pretty()})}};
  json list_op = op("list", "list or watch objects of kind " + k, "list" + og + scope + k);
  list_op["parameters"] = ListParams();
  list_op["responses"] = Responses({{"200", &list}}, true);
  collection["get"] = list_op;
  json create = op("post", "create " + Article(k) + k, "create" + og + scope + k);
  create["parameters"] = json::array({DryRun(), FieldManager(false), FieldValidation()});
  create["requestBody"] = body({{"*/*", {{"schema", Ref(object)}}}});
  create["responses"] = Responses({{"200", &object}, {"201", &object}, {"202", &object}});
  collection["post"] = create;
  if (!(group.empty() && kind.resource == "namespaces")) {
    json delete_collection = op("deletecollection", "delete collection of " + k,
                                "delete" + og + "Collection" + scope + k);
    json params = DeleteParams();
    for (auto& param : ListParams()) params.push_back(param);
    delete_collection["parameters"] = params;
    delete_collection["requestBody"] = body({{"*/*", {{"schema", Ref(delete_options)}}}});
    delete_collection["responses"] = Responses({{"200", &status}});
    collection["delete"] = delete_collection;
  }
  std::string collection_path =
      kind.namespaced ? prefix + "/namespaces/{namespace}/" + resource : prefix + "/" + resource;
  paths[collection_path] = collection;

  // Item.
  json item = {{"parameters", kind.namespaced ? json::array({name_param, namespace_param, Pretty()})
                                              : json::array({name_param, Pretty()})}};
  json read = op("get", "read the specified " + k, "read" + og + scope + k);
  read["responses"] = Responses({{"200", &object}});
  item["get"] = read;
  json replace = op("put", "replace the specified " + k, "replace" + og + scope + k);
  replace["parameters"] = json::array({DryRun(), FieldManager(false), FieldValidation()});
  replace["requestBody"] = body({{"*/*", {{"schema", Ref(object)}}}});
  replace["responses"] = Responses({{"200", &object}, {"201", &object}});
  item["put"] = replace;
  json patch_op = op("patch", "partially update the specified " + k, "patch" + og + scope + k);
  patch_op["parameters"] =
      json::array({DryRun(), FieldManager(true), FieldValidation(),
                   QueryParam("force",
                              "Force is going to \"force\" Apply requests. It means user will "
                              "re-acquire conflicting fields owned by other people. Force flag "
                              "must be unset for non-apply patch requests.",
                              "boolean")});
  json patch_content = json::object();
  for (const char* type :
       {"application/apply-patch+yaml", "application/json-patch+json",
        "application/merge-patch+json", "application/strategic-merge-patch+json"}) {
    patch_content[type] = {{"schema", Ref(patch)}};
  }
  patch_op["requestBody"] = body(patch_content);
  patch_op["responses"] = Responses({{"200", &object}, {"201", &object}});
  item["patch"] = patch_op;
  json remove = op("delete", "delete " + Article(k) + k, "delete" + og + scope + k);
  remove["parameters"] = DeleteParams();
  remove["requestBody"] = body({{"*/*", {{"schema", Ref(delete_options)}}}});
  remove["responses"] = Responses({{"200", &status}, {"202", &status}});
  item["delete"] = remove;
  paths[collection_path + "/{name}"] = item;

  // List across namespaces.
  if (kind.namespaced) {
    json all =
        op("list", "list or watch objects of kind " + k, "list" + og + k + "ForAllNamespaces");
    all["responses"] = Responses({{"200", &list}}, true);
    json all_params = ListParams();
    all_params.push_back(Pretty());
    paths[prefix + "/" + resource] = {{"get", all}, {"parameters", all_params}};
  }
}

std::vector<const api::KindInfo*> KindsAt(const std::vector<ServedVersion>& served,
                                          std::string_view group, std::string_view version) {
  std::vector<const api::KindInfo*> kinds;
  for (const ServedVersion& s : served) {
    if (s.kind == nullptr || s.kind->group != group || s.version != version) continue;
    if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end()) kinds.push_back(s.kind);
  }
  return kinds;
}

std::vector<std::pair<std::string_view, std::string_view>> GroupVersions(
    const std::vector<ServedVersion>& served) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const ServedVersion& s : served) {
    if (s.kind == nullptr) continue;
    std::pair<std::string_view, std::string_view> gv{s.kind->group, s.version};
    if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
  }
  return out;
}

}  // namespace

std::string OpenApiV3Key(std::string_view group, std::string_view version) {
  if (group.empty()) return "api/" + std::string(version);
  return "apis/" + std::string(group) + "/" + std::string(version);
}

std::optional<json> OpenApiV3Document(const std::vector<ServedVersion>& served,
                                      std::string_view group, std::string_view version) {
  auto kinds = KindsAt(served, group, version);
  if (kinds.empty()) return std::nullopt;
  json schemas = json::object();
  AddMetaSchemas(schemas, group, version);
  json paths = json::object();
  std::string prefix =
      group.empty() ? "/api/v1/" : "/apis/" + std::string(group) + "/" + std::string(version) + "/";
  std::string resource_list = MetaName("APIResourceList");
  paths[prefix] = {{"get",
                    {{"description", "get available resources"},
                     {"operationId", "get" + OperationGroup(group, version) + "APIResources"},
                     {"tags", json::array({Tag(group, version)})},
                     {"responses", Responses({{"200", &resource_list}})}}}};
  for (const api::KindInfo* kind : kinds) {
    AddKind(schemas, *kind, version);
    AddPaths(paths, *kind, version);
  }
  return json{
      {"openapi", "3.0.0"},
      {"info", {{"title", "Kubernetes"}, {"version", "unversioned"}}},
      {"paths", paths},
      {"components",
       {{"schemas", schemas},
        {"securitySchemes",
         {{"BearerToken",
           {{"type", "apiKey"},
            {"name", "authorization"},
            {"in", "header"},
            {"description", "Bearer Token authentication"}}}}}}},
  };
}

std::string OpenApiHash(const json& document) {
  std::string text = document.dump();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha512(), nullptr);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xF];
  }
  return hex;
}

json OpenApiV3Index(const std::vector<ServedVersion>& served) {
  json paths = json::object();
  for (const auto& [group, version] : GroupVersions(served)) {
    auto document = OpenApiV3Document(served, group, version);
    if (!document) continue;
    std::string key = OpenApiV3Key(group, version);
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + OpenApiHash(*document)}};
  }
  return {{"paths", paths}};
}

OpenApiV3Documents::OpenApiV3Documents(const std::vector<ServedVersion>& served) {
  json paths = json::object();
  for (const auto& [group, version] : GroupVersions(served)) {
    auto document = OpenApiV3Document(served, group, version);
    if (!document) continue;
    std::string key = OpenApiV3Key(group, version);
    Document entry{document->dump(), OpenApiHash(*document)};
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + entry.hash}};
    documents_.emplace(key, std::move(entry));
  }
  index_body_ = json{{"paths", paths}}.dump();
}

const OpenApiV3Documents::Document* OpenApiV3Documents::Find(std::string_view key) const {
  while (!key.empty() && key.front() == '/') key.remove_prefix(1);
  while (!key.empty() && key.back() == '/') key.remove_suffix(1);
  auto it = documents_.find(key);
  return it == documents_.end() ? nullptr : &it->second;
}

OpenApiV2Reply OpenApiV2(std::string_view accept_header) {
  if (accept_header.find("protobuf") != std::string_view::npos) {
    return {200, "application/octet-stream", ""};
  }
  json swagger = {{"swagger", "2.0"},
                  {"info", {{"title", "Kubernetes"}, {"version", "unversioned"}}},
                  {"paths", json::object()},
                  {"definitions", json::object()}};
  return {200, "application/json", swagger.dump()};
}

}  // namespace tenure::server
