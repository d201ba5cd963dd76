// The kinds tenure serves, and what the server needs to know about each of them without knowing
// the kind: its names, how to canonicalize and validate an object, and its Table columns. All of
// it derives from one description per kind (description.h).
//
// Objects cross this interface as nlohmann::json in their canonical wire form (what
// kube-apiserver would return), so the server, patching and watch code stay kind-agnostic. Typed
// structs for code that wants them live in types.h / codec.h.
#pragma once

#include <chrono>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tenure/status.h"

namespace tenure::api {

struct KindInfo {
  std::string_view group;                  // "" for the core group
  std::vector<std::string_view> versions;  // every version tenure can serve, preferred first
  std::string_view kind;                   // "Lease"
  std::string_view list_kind;              // "LeaseList"
  std::string_view resource;               // "leases"
  std::string_view singular;               // "lease"
  bool namespaced = true;
  std::vector<std::string_view> short_names;
  // Whether PUT without metadata.resourceVersion is allowed (Lease, ConfigMap: yes;
  // LeaseCandidate: no), as kube-apiserver's AllowUnconditionalUpdate.
  bool allow_unconditional_update = true;
  // Whether PUT of a missing object creates it (AllowCreateOnUpdate).
  bool allow_create_on_update = false;
  // The verbs kube-apiserver serves on the resource, sorted, as discovery and OpenAPI list them.
  std::vector<std::string_view> verbs;
  // false: a create-only kind answered at once and never stored (the access and subject
  // reviews); it has no list kind.
  bool stored = true;
  // A kind whose objects are stored in another kind's form under the same resource
  // (events.k8s.io/v1 Event in core/v1 Event's, as kube-apiserver's cohabitating resources):
  // that kind, and the conversions of canonical objects to and from its form. Null: itself.
  const KindInfo* stored_as = nullptr;
  nlohmann::json (*to_storage)(const nlohmann::json& object) = nullptr;
  nlohmann::json (*from_storage)(const nlohmann::json& stored) = nullptr;

  // The subresources kube-apiserver serves on the kind's objects and lists in discovery
  // (namespaces/finalize and /status, serviceaccounts/token): the kind of their body when it is
  // another (group, version, kind; empty: the object's own) and their verbs, sorted.
  struct Subresource {
    std::string_view name;
    std::string_view group, version, kind;
    std::vector<std::string_view> verbs;
  };
  std::vector<Subresource> subresources;

  // The versions kube deprecates, with the release that deprecates each and the one that no
  // longer serves it (kube's prerelease lifecycle): a request to such a version gets
  // kube-apiserver's deprecation Warning once the emulated release has reached it.
  struct Deprecation {
    std::string_view version;
    int deprecated_minor = 0;  // 1.<minor>
    int removed_minor = 0;     // 0: no removal planned
  };
  std::vector<Deprecation> deprecations;

  // "leases.coordination.k8s.io" or "configmaps" for the core group: used in messages.
  std::string qualified_resource() const;
  // "Lease.coordination.k8s.io" or "ConfigMap": used in "... is invalid" messages.
  std::string qualified_kind() const;
  // "coordination.k8s.io/v1" or "v1".
  std::string api_version(std::string_view version) const;
};

const std::vector<const KindInfo*>& AllKinds();
// The kinds that are only the bodies of a subresource (TokenRequest, of serviceaccounts/token):
// described, decoded and validated like the others, not served as resources of their own.
const std::vector<const KindInfo*>& SubresourceKinds();
const KindInfo* FindByResource(std::string_view group, std::string_view resource);
const KindInfo* FindByKind(std::string_view group, std::string_view kind);
// The registry's entries, for code that names the kind it works with (API paths, api_paths.h).
const KindInfo& LeaseKind();
const KindInfo& LeaseCandidateKind();
const KindInfo& ConfigMapKind();
const KindInfo& NamespaceKind();
const KindInfo& EventKind();
const KindInfo& EventsV1EventKind();  // events.k8s.io/v1, stored as core/v1 Events
const KindInfo& RoleKind();
const KindInfo& ClusterRoleKind();
const KindInfo& RoleBindingKind();
const KindInfo& ClusterRoleBindingKind();
const KindInfo& SelfSubjectAccessReviewKind();
const KindInfo& SubjectAccessReviewKind();
const KindInfo& LocalSubjectAccessReviewKind();
const KindInfo& SelfSubjectRulesReviewKind();
const KindInfo& SelfSubjectReviewKind();
const KindInfo& ServiceAccountKind();
const KindInfo& TokenRequestKind();

struct DecodeOptions {
  bool strict = false;  // fieldValidation=Strict: unknown or duplicate fields are an error
  // Not strict: the paths of the unknown fields ("spec.foo") are appended here when given, for
  // the warnings of fieldValidation=Warn (kube-apiserver's default).
  std::vector<std::string>* unknown_fields = nullptr;
};

// Turns a client-supplied object into canonical form: checks every known field's JSON type
// (integers given as strings are BadRequest), drops unknown fields (or, when strict, fails with
// BadRequest naming them, as kube-apiserver's 'strict decoding error: unknown field "spec.x"'),
// normalizes times (MicroTime to 6 fractional digits, Time to whole seconds), and omits unset
// optional fields. apiVersion must be one of the kind's versions and kind must match.
// Server-owned metadata (uid, resourceVersion, creationTimestamp, generation) is kept as given;
// the server overwrites it.
Result<nlohmann::json> Canonicalize(const KindInfo& kind, const nlohmann::json& object,
                                    const DecodeOptions& options);

// Validation identical to kube-apiserver's for the kind: Invalid with one cause per field and a
// message in kube-apiserver's form ('Lease.coordination.k8s.io "bad" is invalid:
// spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0'). `object` is canonical.
Status ValidateCreate(const KindInfo& kind, const nlohmann::json& object);
Status ValidateUpdate(const KindInfo& kind, const nlohmann::json& object,
                      const nlohmann::json& old_object);
// True when ValidateUpdate reads nothing of `old_object` but its metadata (the server may then
// decode only the stored metadata on the update hot path).
bool UpdateReadsOnlyOldMetadata(const KindInfo& kind);

// Table columns of the real server (Lease: Name, Holder, Age; LeaseCandidate: Name, LeaseName,
// BinaryVersion, EmulationVersion, Age; ConfigMap: Name, Data, Age; Namespace: Name, Status,
// Age; Event: Last Seen, Type, Reason, Object, Message), as metav1.TableColumnDefinition JSON.
nlohmann::json TableColumns(const KindInfo& kind);
// One row's cells for a canonical object; `now` renders Age like kubectl ("5m12s", "3d").
nlohmann::json TableCells(const KindInfo& kind, const nlohmann::json& object,
                          std::chrono::system_clock::time_point now);

// Value of a field selector path ("metadata.name", "spec.leaseName", "involvedObject.uid", ...)
// for the kind, or BadRequest when the field is not supported for selection (same message as
// kube-apiserver: 'field label not supported: spec.foo').
Result<std::string> SelectableField(const KindInfo& kind, const nlohmann::json& object,
                                    std::string_view field);

}  // namespace tenure::api
