// Descriptions of the API machinery's objects in every OpenAPI document (Status, WatchEvent, ...).
#include "api/meta_descriptions.h"
#include "api/types.h"

namespace tenure::api {
namespace {

using E = Emit;

const ObjectDescription& StatusCauseObject() {
  static const ObjectDescription d{
      .go_name = "StatusCause",
      .openapi_package = kMetaPackage,
      .doc =
          "StatusCause provides more information about an api.Status failure, including "
          "cases when multiple errors are encountered.",
      .fields = {
          field::String("reason", E::kOmitEmpty,
                        "A machine-readable description of the cause of the error. If this "
                        "value is empty there is no information available.")
              .Bind<&StatusCause::type>(),
          field::String("message", E::kOmitEmpty,
                        "A human-readable description of the cause of the error.  This field "
                        "may be presented as-is to a reader.")
              .Bind<&StatusCause::message>(),
          field::String("field", E::kOmitEmpty,
                        "The field of the resource that has caused this error, as named by its "
                        "JSON serialization. May include dot and postfix notation for nested "
                        "attributes. Arrays are zero-indexed.  Fields may appear more than once "
                        "in an array of causes due to fields having multiple errors. Optional.")
              .Bind<&StatusCause::field>(),
      }};
  return d;
}

const ObjectDescription& StatusDetailsObject() {
  static const ObjectDescription d{
      .go_name = "StatusDetails",
      .openapi_package = kMetaPackage,
      .doc =
          "StatusDetails is a set of additional properties that MAY be set by the server to "
          "provide additional information about a response. The Reason field of a Status "
          "object defines what attributes will be set. Clients must ignore fields that do "
          "not match the defined type of each attribute, and should assume that any "
          "attribute may be empty, invalid, or under defined.",
      .fields = {
          field::String("name", E::kOmitEmpty,
                        "The name attribute of the resource associated with the status "
                        "StatusReason (when there is a single name which can be described).")
              .Bind<&ApiStatusDetails::name>(),
          field::String("group", E::kOmitEmpty,
                        "The group attribute of the resource associated with the status "
                        "StatusReason.")
              .Bind<&ApiStatusDetails::group>(),
          field::String("kind", E::kOmitEmpty,
                        "The kind attribute of the resource associated with the status "
                        "StatusReason. On some operations may differ from the requested "
                        "resource Kind.")
              .Bind<&ApiStatusDetails::kind>(),
          field::String("uid", E::kOmitEmpty,
                        "UID of the resource. (when there is a single resource which can be "
                        "described).",
                        "types.UID")
              .Bind<&ApiStatusDetails::uid>(),
          field::ObjectList("causes", E::kOmitEmpty, StatusCauseObject(),
                            "The Causes array includes more details associated with the "
                            "StatusReason failure. Not all StatusReasons may provide detailed "
                            "causes.")
              .ListType("atomic")
              .Bind<&ApiStatusDetails::causes>(),
          field::Int32("retryAfterSeconds", E::kOmitEmpty,
                       "If specified, the time in seconds before the operation should be "
                       "retried.")
              .Bind<&ApiStatusDetails::retry_after_seconds>(),
      }};
  return d;
}

const ObjectDescription& PreconditionsObject() {
  static const ObjectDescription d{
      .go_name = "Preconditions",
      .openapi_package = kMetaPackage,
      .doc =
          "Preconditions must be fulfilled before an operation (update, delete, etc.) is "
          "carried out.",
      .fields = {
          field::String("uid", E::kPointer, "Specifies the target UID.", "types.UID")
              .Bind<&Preconditions::uid>(),
          field::String("resourceVersion", E::kPointer, "Specifies the target ResourceVersion")
              .Bind<&Preconditions::resource_version>(),
      }};
  return d;
}

const ObjectDescription& RawExtensionObject() {
  static const ObjectDescription d{
      .go_name = "RawExtension",
      .openapi_package = kRuntimePackage,
      .doc =
          "RawExtension is used to hold extensions in external versions. On the wire it is "
          "the JSON of an embedded object with its own apiVersion and kind.",
  };
  return d;
}

const ObjectDescription& ApiResourceObject() {
  static const ObjectDescription d{
      .go_name = "APIResource",
      .openapi_package = kMetaPackage,
      .doc = "APIResource specifies the name of a resource and whether it is namespaced.",
      .fields = {
          field::String("name", E::kAlways, "name is the plural name of the resource.").Required(),
          field::String("singularName", E::kAlways,
                        "singularName is the singular name of the resource.  This allows "
                        "clients to handle plural and singular opaquely. The singularName is "
                        "more correct for reporting status on a single item and both singular "
                        "and plural are allowed from the kubectl CLI interface.")
              .Required(),
          field::Bool("namespaced", E::kAlways,
                      "namespaced indicates if a resource is namespaced or not.")
              .Required(),
          field::String("group", E::kOmitEmpty,
                        "group is the preferred group of the resource.  Empty implies the group "
                        "of the containing resource list."),
          field::String("version", E::kOmitEmpty,
                        "version is the preferred version of the resource.  Empty implies the "
                        "version of the containing resource list"),
          field::String("kind", E::kAlways,
                        "kind is the kind for the resource (e.g. 'Foo' is the kind for a "
                        "resource 'foo')")
              .Required(),
          field::StringList("verbs", E::kAlways,
                            "verbs is a list of supported kube verbs (this includes get, list, "
                            "watch, create, update, patch, delete, deletecollection, and proxy)")
              .Required(),
          field::StringList("shortNames", E::kOmitEmpty,
                            "shortNames is a list of suggested short names of the resource."),
          field::StringList("categories", E::kOmitEmpty,
                            "categories is a list of the grouped resources this resource "
                            "belongs to (e.g. 'all')"),
          field::String("storageVersionHash", E::kOmitEmpty,
                        "The hash value of the storage version, the version this resource is "
                        "converted to when written to the data store. Value must be treated as "
                        "opaque by clients. Only equality comparison on the value is valid."),
      }};
  return d;
}

}  // namespace

const ObjectDescription& StatusObject() {
  static const ObjectDescription d{
      .go_name = "Status",
      .openapi_package = kMetaPackage,
      .doc = "Status is a return value for calls that don't return other objects.",
      .fields = WithTypeMeta({
          field::Object("metadata", E::kAlways, ListMetaObject(), kStandardListMeta)
              .OpenApiDefault()
              .Bind<&ApiStatus::metadata>(),
          field::String("status", E::kOmitEmpty,
                        std::string("Status of the operation. One of: \"Success\" or "
                                    "\"Failure\". ") +
                            kSpecMoreInfo)
              .Bind<&ApiStatus::status>(),
          field::String("message", E::kOmitEmpty,
                        "A human-readable description of the status of this operation.")
              .Bind<&ApiStatus::message>(),
          field::String("reason", E::kOmitEmpty,
                        "A machine-readable description of why this operation is in the "
                        "\"Failure\" status. If this value is empty there is no information "
                        "available. A Reason clarifies an HTTP status code but does not "
                        "override it.",
                        "v1.StatusReason")
              .Bind<&ApiStatus::reason>(),
          field::Object("details", E::kPointer, StatusDetailsObject(),
                        "Extended data associated with the reason.  Each reason may define its "
                        "own extended details. This field is optional and the data returned is "
                        "not guaranteed to conform to any schema except that defined by the "
                        "reason type.")
              .Bind<&ApiStatus::details>(),
          field::Int32("code", E::kOmitEmpty,
                       "Suggested HTTP return code for this status, 0 if not set.")
              .Bind<&ApiStatus::code>(),
      }),
  };
  return d;
}

const ObjectDescription& DeleteOptionsObject() {
  static const ObjectDescription d{
      .go_name = "DeleteOptions",
      .openapi_package = kMetaPackage,
      .doc = "DeleteOptions may be provided when deleting an API object.",
      .fields = WithTypeMeta({
          field::Int64("gracePeriodSeconds", E::kPointer,
                       "The duration in seconds before the object should be deleted. Value must "
                       "be non-negative integer. The value zero indicates delete immediately. If "
                       "this value is nil, the default grace period for the specified type will "
                       "be used. Defaults to a per object value if not specified. zero means "
                       "delete immediately.")
              .Bind<&DeleteOptions::grace_period_seconds>(),
          field::Object("preconditions", E::kPointer, PreconditionsObject(),
                        "Must be fulfilled before a deletion is carried out. If not possible, a "
                        "409 Conflict status will be returned.")
              .Bind<&DeleteOptions::preconditions>(),
          field::Bool("orphanDependents", E::kPointer,
                      "Deprecated: please use the PropagationPolicy, this field will be "
                      "deprecated in 1.7. Should the dependent objects be orphaned. If "
                      "true/false, the \"orphan\" finalizer will be added to/removed from the "
                      "object's finalizers list. Either this field or PropagationPolicy may be "
                      "set, but not both."),
          field::String("propagationPolicy", E::kPointer,
                        "Whether and how garbage collection will be performed. Either this "
                        "field or OrphanDependents may be set, but not both. The default policy "
                        "is decided by the existing finalizer set in the metadata.finalizers and "
                        "the resource-specific default policy. Acceptable values are: 'Orphan' - "
                        "orphan the dependents; 'Background' - allow the garbage collector to "
                        "delete the dependents in the background; 'Foreground' - a cascading "
                        "policy that deletes all dependents in the foreground.",
                        "v1.DeletionPropagation")
              .Bind<&DeleteOptions::propagation_policy>(),
          field::StringList("dryRun", E::kOmitEmpty,
                            "When present, indicates that modifications should not be persisted. "
                            "An invalid or unrecognized dryRun directive will result in an error "
                            "response and no further processing of the request. Valid values "
                            "are: - All: all dry run stages will be processed")
              .ListType("atomic"),
      }),
  };
  return d;
}

const ObjectDescription& PatchObject() {
  static const ObjectDescription d{
      .go_name = "Patch",
      .openapi_package = kMetaPackage,
      .doc =
          "Patch is provided to give a concrete name and type to the Kubernetes PATCH "
          "request body.",
  };
  return d;
}

const ObjectDescription& WatchEventObject() {
  static const ObjectDescription d{
      .go_name = "WatchEvent",
      .openapi_package = kMetaPackage,
      .doc = "Event represents a single event to a watched resource.",
      .fields = {
          field::String("type", E::kAlways, "").Required().OpenApiDefault(),
          field::Object("object", E::kAlways, RawExtensionObject(),
                        "Object is:\n * If Type is Added or Modified: the new state of the "
                        "object.\n * If Type is Deleted: the state of the object immediately "
                        "before deletion.\n * If Type is Error: *Status is recommended; other "
                        "types may make sense\n   depending on context.")
              .Required(),
      }};
  return d;
}

const ObjectDescription& ApiResourceListObject() {
  static const ObjectDescription d{
      .go_name = "APIResourceList",
      .openapi_package = kMetaPackage,
      .doc =
          "APIResourceList is a list of APIResource, it is used to expose the name of the "
          "resources supported in a specific group and version, and if the resource is "
          "namespaced.",
      .fields = WithTypeMeta({
          field::String("groupVersion", E::kAlways,
                        "groupVersion is the group and version this APIResourceList is for.")
              .Required(),
          field::ObjectList("resources", E::kAlways, ApiResourceObject(),
                            "resources contains the name of the resources and if they are "
                            "namespaced.")
              .Required(),
      }),
  };
  return d;
}

}  // namespace tenure::api
