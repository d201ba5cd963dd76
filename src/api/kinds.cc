// The table of kinds tenure serves and their lookups.
#include "api/kinds.h"

namespace tenure::api {
namespace {

KindInfo MakeLease() {
  KindInfo k;
  k.group = "coordination.k8s.io";
  k.versions = {"v1"};
  k.kind = "Lease";
  k.list_kind = "LeaseList";
  k.resource = "leases";
  k.singular = "lease";
  k.namespaced = true;
  // As kube-apiserver's leaseStrategy (pkg/registry/coordination/lease/strategy.go).
  k.allow_unconditional_update = false;
  k.allow_create_on_update = true;
  return k;
}

KindInfo MakeLeaseCandidate() {
  KindInfo k;
  k.group = "coordination.k8s.io";
  k.versions = {"v1beta1", "v1alpha2"};
  k.kind = "LeaseCandidate";
  k.list_kind = "LeaseCandidateList";
  k.resource = "leasecandidates";
  k.singular = "leasecandidate";
  k.namespaced = true;
  k.allow_unconditional_update = false;
  k.allow_create_on_update = true;
  return k;
}

KindInfo MakeConfigMap() {
  KindInfo k;
  k.group = "";
  k.versions = {"v1"};
  k.kind = "ConfigMap";
  k.list_kind = "ConfigMapList";
  k.resource = "configmaps";
  k.singular = "configmap";
  k.namespaced = true;
  k.short_names = {"cm"};
  k.allow_unconditional_update = true;
  k.allow_create_on_update = false;
  return k;
}

KindInfo MakeNamespace() {
  KindInfo k;
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
  return k;
}

KindInfo MakeEvent() {
  KindInfo k;
  k.group = "";
  k.versions = {"v1"};
  k.kind = "Event";
  k.list_kind = "EventList";
  k.resource = "events";
  k.singular = "event";
  k.namespaced = true;
  k.short_names = {"ev"};
  k.allow_unconditional_update = true;
  k.allow_create_on_update = true;
  return k;
}

}  // namespace

std::string KindInfo::qualified_resource() const {
  std::string out(resource);
  if (!group.empty()) {
    out += '.';
    out += group;
  }
  return out;
}

std::string KindInfo::qualified_kind() const {
  std::string out(kind);
  if (!group.empty()) {
    out += '.';
    out += group;
  }
  return out;
}

std::string KindInfo::api_version(std::string_view version) const {
  if (group.empty()) return std::string(version);
  std::string out(group);
  out += '/';
  out += version;
  return out;
}

const std::vector<const KindInfo*>& AllKinds() {
  static const KindInfo lease = MakeLease();
  static const KindInfo candidate = MakeLeaseCandidate();
  static const KindInfo configmap = MakeConfigMap();
  static const KindInfo ns = MakeNamespace();
  static const KindInfo event = MakeEvent();
  static const std::vector<const KindInfo*> all = {&lease, &candidate, &configmap, &ns, &event};
  return all;
}

const KindInfo* FindByResource(std::string_view group, std::string_view resource) {
  for (const KindInfo* k : AllKinds()) {
    if (k->group == group && k->resource == resource) return k;
  }
  return nullptr;
}

const KindInfo* FindByKind(std::string_view group, std::string_view kind) {
  for (const KindInfo* k : AllKinds()) {
    if (k->group == group && k->kind == kind) return k;
  }
  return nullptr;
}

}  // namespace tenure::api
