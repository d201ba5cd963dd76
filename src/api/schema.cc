// The field schemas of ObjectMeta and every kind, which drive Canonicalize and the decoders.
#include "api/schema.h"

namespace tenure::api::internal {
namespace {

using FT = FieldType;
using E = Emit;

struct Schemas {
  ObjectSchema owner_reference, object_meta;
  ObjectSchema lease_spec, lease;
  ObjectSchema candidate_spec, candidate;
  ObjectSchema configmap;
  ObjectSchema namespace_condition, namespace_spec, namespace_status, ns;
  ObjectSchema object_reference, event_source, event_series, event;

  Schemas() {
    owner_reference = {"OwnerReference",
                       {
                           {"apiVersion", FT::kString, E::kAlways, "string", ""},
                           {"kind", FT::kString, E::kAlways, "string", ""},
                           {"name", FT::kString, E::kAlways, "string", ""},
                           {"uid", FT::kString, E::kAlways, "types.UID", ""},
                           {"controller", FT::kBool, E::kPointer, "bool", ""},
                           {"blockOwnerDeletion", FT::kBool, E::kPointer, "bool", ""},
                       }};
    object_meta = {
        "ObjectMeta",
        {
            {"name", FT::kString, E::kOmitEmpty, "string", ""},
            {"generateName", FT::kString, E::kOmitEmpty, "string", ""},
            {"namespace", FT::kString, E::kOmitEmpty, "string", ""},
            {"selfLink", FT::kDroppedString, E::kOmitEmpty, "string", ""},
            {"uid", FT::kString, E::kOmitEmpty, "types.UID", ""},
            {"resourceVersion", FT::kString, E::kOmitEmpty, "string", ""},
            {"generation", FT::kInt64, E::kOmitEmpty, "int64", ""},
            {"creationTimestamp", FT::kTime, E::kOmitEmpty, "string", ""},
            {"deletionTimestamp", FT::kTime, E::kPointer, "string", ""},
            {"deletionGracePeriodSeconds", FT::kInt64, E::kPointer, "int64", ""},
            {"labels", FT::kStringMap, E::kOmitEmpty, "map[string]string", "string"},
            {"annotations", FT::kStringMap, E::kOmitEmpty, "map[string]string", "string"},
            {"ownerReferences", FT::kObjectList, E::kOmitEmpty, "[]v1.OwnerReference",
             "v1.OwnerReference", &owner_reference},
            {"finalizers", FT::kStringList, E::kOmitEmpty, "[]string", "string"},
            {"managedFields", FT::kDroppedList, E::kOmitEmpty, "[]v1.ManagedFieldsEntry", ""},
        }};

    lease_spec = {"LeaseSpec",
                  {
                      {"holderIdentity", FT::kString, E::kPointer, "string", ""},
                      {"leaseDurationSeconds", FT::kInt32, E::kPointer, "int32", ""},
                      {"acquireTime", FT::kMicroTime, E::kPointer, "string", ""},
                      {"renewTime", FT::kMicroTime, E::kPointer, "string", ""},
                      {"leaseTransitions", FT::kInt32, E::kPointer, "int32", ""},
                      {"strategy", FT::kString, E::kPointer, "v1.CoordinatedLeaseStrategy", ""},
                      {"preferredHolder", FT::kString, E::kPointer, "string", ""},
                  }};
    lease = {"Lease",
             {
                 {"apiVersion", FT::kDroppedString, E::kOmitEmpty, "string", ""},
                 {"kind", FT::kDroppedString, E::kOmitEmpty, "string", ""},
                 {"metadata", FT::kObject, E::kAlways, "v1.ObjectMeta", "", &object_meta},
                 {"spec", FT::kObject, E::kAlways, "v1.LeaseSpec", "", &lease_spec},
             }};

    candidate_spec = {"LeaseCandidateSpec",
                      {
                          {"leaseName", FT::kString, E::kAlways, "string", ""},
                          {"pingTime", FT::kMicroTime, E::kPointer, "string", ""},
                          {"renewTime", FT::kMicroTime, E::kPointer, "string", ""},
                          {"binaryVersion", FT::kString, E::kAlways, "string", ""},
                          {"emulationVersion", FT::kString, E::kOmitEmpty, "string", ""},
                          {"strategy", FT::kString, E::kAlways, "v1.CoordinatedLeaseStrategy", ""},
                      }};
    candidate = {
        "LeaseCandidate",
        {
            {"apiVersion", FT::kDroppedString, E::kOmitEmpty, "string", ""},
            {"kind", FT::kDroppedString, E::kOmitEmpty, "string", ""},
            {"metadata", FT::kObject, E::kAlways, "v1.ObjectMeta", "", &object_meta},
            {"spec", FT::kObject, E::kAlways, "v1beta1.LeaseCandidateSpec", "", &candidate_spec},
        }};

    configmap = {"ConfigMap",
                 {
                     {"apiVersion", FT::kDroppedString, E::kOmitEmpty, "string", ""},
                     {"kind", FT::kDroppedString, E::kOmitEmpty, "string", ""},
                     {"metadata", FT::kObject, E::kAlways, "v1.ObjectMeta", "", &object_meta},
                     {"immutable", FT::kBool, E::kPointer, "bool", ""},
                     {"data", FT::kStringMap, E::kOmitEmpty, "map[string]string", "string"},
                     {"binaryData", FT::kBytesMap, E::kOmitEmpty, "map[string][]uint8", "[]uint8"},
                 }};

    namespace_condition = {"NamespaceCondition",
                           {
                               {"type", FT::kString, E::kAlways, "v1.NamespaceConditionType", ""},
                               {"status", FT::kString, E::kAlways, "v1.ConditionStatus", ""},
                               {"lastTransitionTime", FT::kTime, E::kOmitEmpty, "string", ""},
                               {"reason", FT::kString, E::kOmitEmpty, "string", ""},
                               {"message", FT::kString, E::kOmitEmpty, "string", ""},
                           }};
    namespace_spec = {"NamespaceSpec",
                      {
                          {"finalizers", FT::kStringList, E::kOmitEmpty, "[]v1.FinalizerName",
                           "v1.FinalizerName"},
                      }};
    namespace_status = {
        "NamespaceStatus",
        {
            {"phase", FT::kString, E::kOmitEmpty, "v1.NamespacePhase", ""},
            {"conditions", FT::kObjectList, E::kOmitEmpty, "[]v1.NamespaceCondition",
             "v1.NamespaceCondition", &namespace_condition},
        }};
    ns = {"Namespace",
          {
              {"apiVersion", FT::kDroppedString, E::kOmitEmpty, "string", ""},
              {"kind", FT::kDroppedString, E::kOmitEmpty, "string", ""},
              {"metadata", FT::kObject, E::kAlways, "v1.ObjectMeta", "", &object_meta},
              {"spec", FT::kObject, E::kAlways, "v1.NamespaceSpec", "", &namespace_spec},
              {"status", FT::kObject, E::kAlways, "v1.NamespaceStatus", "", &namespace_status},
          }};

    object_reference = {"ObjectReference",
                        {
                            {"kind", FT::kString, E::kOmitEmpty, "string", ""},
                            {"namespace", FT::kString, E::kOmitEmpty, "string", ""},
                            {"name", FT::kString, E::kOmitEmpty, "string", ""},
                            {"uid", FT::kString, E::kOmitEmpty, "types.UID", ""},
                            {"apiVersion", FT::kString, E::kOmitEmpty, "string", ""},
                            {"resourceVersion", FT::kString, E::kOmitEmpty, "string", ""},
                            {"fieldPath", FT::kString, E::kOmitEmpty, "string", ""},
                        }};
    event_source = {"EventSource",
                    {
                        {"component", FT::kString, E::kOmitEmpty, "string", ""},
                        {"host", FT::kString, E::kOmitEmpty, "string", ""},
                    }};
    event_series = {"EventSeries",
                    {
                        {"count", FT::kInt32, E::kOmitEmpty, "int32", ""},
                        {"lastObservedTime", FT::kMicroTime, E::kAlways, "string", ""},
                    }};
    event = {"Event",
             {
                 {"apiVersion", FT::kDroppedString, E::kOmitEmpty, "string", ""},
                 {"kind", FT::kDroppedString, E::kOmitEmpty, "string", ""},
                 {"metadata", FT::kObject, E::kAlways, "v1.ObjectMeta", "", &object_meta},
                 {"involvedObject", FT::kObject, E::kAlways, "v1.ObjectReference", "",
                  &object_reference},
                 {"reason", FT::kString, E::kOmitEmpty, "string", ""},
                 {"message", FT::kString, E::kOmitEmpty, "string", ""},
                 {"source", FT::kObject, E::kAlways, "v1.EventSource", "", &event_source},
                 {"firstTimestamp", FT::kTime, E::kAlways, "string", ""},
                 {"lastTimestamp", FT::kTime, E::kAlways, "string", ""},
                 {"count", FT::kInt32, E::kOmitEmpty, "int32", ""},
                 {"type", FT::kString, E::kOmitEmpty, "string", ""},
                 {"eventTime", FT::kMicroTime, E::kAlways, "string", ""},
                 {"series", FT::kObject, E::kPointer, "v1.EventSeries", "", &event_series},
                 {"action", FT::kString, E::kOmitEmpty, "string", ""},
                 {"related", FT::kObject, E::kPointer, "v1.ObjectReference", "", &object_reference},
                 {"reportingComponent", FT::kString, E::kAlways, "string", ""},
                 {"reportingInstance", FT::kString, E::kAlways, "string", ""},
             }};
  }
};

const Schemas& All() {
  static const Schemas schemas;
  return schemas;
}

}  // namespace

const FieldSchema* ObjectSchema::Find(std::string_view name) const {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ObjectSchema& SchemaFor(const KindInfo& kind) {
  const Schemas& s = All();
  if (kind.kind == "Lease") return s.lease;
  if (kind.kind == "LeaseCandidate") return s.candidate;
  if (kind.kind == "ConfigMap") return s.configmap;
  if (kind.kind == "Namespace") return s.ns;
  return s.event;
}

const ObjectSchema& ObjectMetaSchema() { return All().object_meta; }

const nlohmann::json* Child(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string_view StringAt(const nlohmann::json& object, const char* key) {
  const nlohmann::json* v = Child(object, key);
  if (v == nullptr || !v->is_string()) return {};
  return v->get_ref<const std::string&>();
}

const nlohmann::json& EmptyObject() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

}  // namespace tenure::api::internal
