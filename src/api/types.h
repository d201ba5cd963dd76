// Typed Kubernetes objects for code that prefers structs to JSON (the client library, the
// elector, the coordination controller). Plain data; codec.h converts.
//
// Optional wire fields are std::optional (or empty strings/maps where Kubernetes itself omits
// empty values). Times are system_clock time points at microsecond precision.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/time.h"
#include "tenure/status.h"

namespace tenure::api {

// The object as it was decoded, kept by codec.h's decoders so that ToJson writes the typed
// fields over it: fields a struct does not model (a newer server's, or ones it leaves out such as
// managedFields) survive a read-modify-write through the struct. Shared, never changed; it takes
// no part in ==, which compares what the struct models.
class WireOriginal {
 public:
  WireOriginal() = default;
  explicit WireOriginal(std::shared_ptr<const nlohmann::json> object)
      : object_(std::move(object)) {}
  // The decoded object, or nullptr for a struct built in code.
  const nlohmann::json* get() const { return object_.get(); }
  bool operator==(const WireOriginal&) const { return true; }

 private:
  std::shared_ptr<const nlohmann::json> object_;
};

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  bool operator==(const OwnerReference&) const = default;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<Timestamp> creation_timestamp;
  std::optional<Timestamp> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  bool operator==(const ObjectMeta&) const = default;
};

struct ListMeta {
  std::string resource_version;
  std::string continue_token;  // "continue" on the wire
  std::optional<int64_t> remaining_item_count;
  bool operator==(const ListMeta&) const = default;
};

// coordination.k8s.io/v1 Lease.
struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::optional<Timestamp> acquire_time;  // MicroTime
  std::optional<Timestamp> renew_time;    // MicroTime
  std::optional<int32_t> lease_transitions;
  std::optional<std::string> strategy;  // "OldestEmulationVersion" or "<domain>/<name>"
  std::optional<std::string> preferred_holder;
  bool operator==(const LeaseSpec&) const = default;
};

struct Lease {
  ObjectMeta metadata;
  LeaseSpec spec;
  WireOriginal original;
  bool operator==(const Lease&) const = default;
};

// When a lease lapses: leaseDurationSeconds after renewTime, or after acquireTime when it was
// never renewed and `or_acquire_time` is set; nullopt without those fields (the coordination
// controller treats that as expired, `tenure describe` shows it as unknown).
inline std::optional<Timestamp> LeaseExpiry(const LeaseSpec& spec, bool or_acquire_time = false) {
  std::optional<Timestamp> base = spec.renew_time;
  if (!base && or_acquire_time) base = spec.acquire_time;
  if (!base || !spec.lease_duration_seconds) return std::nullopt;
  return *base + std::chrono::seconds(*spec.lease_duration_seconds);
}

// coordination.k8s.io/v1beta1 (and v1alpha2) LeaseCandidate.
struct LeaseCandidateSpec {
  std::string lease_name;
  std::optional<Timestamp> ping_time;   // MicroTime
  std::optional<Timestamp> renew_time;  // MicroTime
  std::string binary_version;
  std::string emulation_version;
  std::string strategy;
  bool operator==(const LeaseCandidateSpec&) const = default;
};

// A ping not yet answered: pingTime strictly after renewTime (as client-go decides it).
inline bool PingPending(const LeaseCandidateSpec& spec) {
  return spec.ping_time && (!spec.renew_time || *spec.ping_time > *spec.renew_time);
}

struct LeaseCandidate {
  ObjectMeta metadata;
  LeaseCandidateSpec spec;
  WireOriginal original;
  bool operator==(const LeaseCandidate&) const = default;
};

// core/v1 ConfigMap. binary_data holds the decoded bytes (base64 on the wire).
struct ConfigMap {
  ObjectMeta metadata;
  std::map<std::string, std::string> data;
  std::map<std::string, std::string> binary_data;
  std::optional<bool> immutable;
  WireOriginal original;
  bool operator==(const ConfigMap&) const = default;
};

// core/v1 Namespace (status.conditions are not kept).
struct NamespaceSpec {
  std::vector<std::string> finalizers;
  bool operator==(const NamespaceSpec&) const = default;
};

struct NamespaceStatus {
  std::string phase;  // "Active" or "Terminating"
  bool operator==(const NamespaceStatus&) const = default;
};

struct Namespace {
  ObjectMeta metadata;
  NamespaceSpec spec;
  NamespaceStatus status;
  WireOriginal original;
  bool operator==(const Namespace&) const = default;
};

// core/v1 ObjectReference.
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;
  bool operator==(const ObjectReference&) const = default;
};

struct EventSource {
  std::string component;
  std::string host;
  bool operator==(const EventSource&) const = default;
};

struct EventSeries {
  int32_t count = 0;
  std::optional<Timestamp> last_observed_time;  // MicroTime
  bool operator==(const EventSeries&) const = default;
};

// core/v1 Event.
struct Event {
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string reason;
  std::string message;
  EventSource source;
  std::optional<Timestamp> first_timestamp;  // Time
  std::optional<Timestamp> last_timestamp;   // Time
  int32_t count = 0;
  std::string type;                     // "Normal" or "Warning"
  std::optional<Timestamp> event_time;  // MicroTime
  std::optional<EventSeries> series;
  std::string action;
  std::optional<ObjectReference> related;
  std::string reporting_component;
  std::string reporting_instance;
  WireOriginal original;
  bool operator==(const Event&) const = default;
};

// meta/v1 DeleteOptions, as far as tenure's clients send them.
struct Preconditions {
  std::optional<std::string> uid;
  std::optional<std::string> resource_version;
  bool operator==(const Preconditions&) const = default;
};

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::optional<Preconditions> preconditions;
  std::optional<std::string> propagation_policy;
  bool operator==(const DeleteOptions&) const = default;
};

// meta/v1 Status as it is on the wire (status_object.h converts it to and from tenure::Status,
// whose StatusCause is the wire's as it is: reason, message, field).
struct ApiStatusDetails {
  std::string name;
  std::string group;
  std::string kind;  // the resource ("leases"), or the kind for Invalid
  std::string uid;
  std::vector<StatusCause> causes;
  int32_t retry_after_seconds = 0;
  bool operator==(const ApiStatusDetails&) const = default;
};

struct ApiStatus {
  ListMeta metadata;   // continue: see Status::list_continue
  std::string status;  // "Success" or "Failure"
  std::string message;
  std::string reason;  // "NotFound", ...; empty on success
  std::optional<ApiStatusDetails> details;
  std::optional<int32_t> code;  // 0 or absent: not set (the HTTP code decides)
  bool operator==(const ApiStatus&) const = default;
};

// rbac.authorization.k8s.io/v1: what RBAC evaluates (the kinds' objects, as far as the rules
// read them).
struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;  // "leases", "leases/status", "*/status", "*"
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;  // "/healthz", "/apis/*", "*"
  bool operator==(const PolicyRule&) const = default;
};

struct Role {  // and ClusterRole (metadata.namespace empty)
  ObjectMeta metadata;
  std::vector<PolicyRule> rules;
  bool operator==(const Role&) const = default;
};

struct Subject {
  std::string kind;       // "User", "Group", "ServiceAccount"
  std::string api_group;  // "rbac.authorization.k8s.io" for User and Group, "" for ServiceAccount
  std::string name;
  std::string namespace_;  // ServiceAccount only
  bool operator==(const Subject&) const = default;
};

struct RoleRef {
  std::string api_group;  // "rbac.authorization.k8s.io"
  std::string kind;       // "Role" or "ClusterRole"
  std::string name;
  bool operator==(const RoleRef&) const = default;
};

struct RoleBinding {  // and ClusterRoleBinding (metadata.namespace empty)
  ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef role_ref;
  bool operator==(const RoleBinding&) const = default;
};

template <typename T>
struct List {
  ListMeta metadata;
  std::vector<T> items;
};
using LeaseList = List<Lease>;
using LeaseCandidateList = List<LeaseCandidate>;
using ConfigMapList = List<ConfigMap>;
using EventList = List<Event>;
using NamespaceList = List<Namespace>;

}  // namespace tenure::api
