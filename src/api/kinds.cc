// The kinds tenure serves (one description each, kind_<name>.cc) and their lookups.
#include "api/kinds.h"

#include "api/kind_entries.h"

namespace tenure::api {

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
  static const std::vector<const KindInfo*> all = {
      &internal::LeaseKind(),
      &internal::LeaseCandidateKind(),
      &internal::ConfigMapKind(),
      &internal::NamespaceKind(),
      &internal::EventKind(),
      &internal::EventsV1EventKind(),
      &internal::RoleKind(),
      &internal::ClusterRoleKind(),
      &internal::RoleBindingKind(),
      &internal::ClusterRoleBindingKind(),
      &internal::SelfSubjectAccessReviewKind(),
      &internal::SubjectAccessReviewKind(),
      &internal::LocalSubjectAccessReviewKind(),
      &internal::SelfSubjectRulesReviewKind(),
      &internal::SelfSubjectReviewKind(),
      &internal::ServiceAccountKind(),
  };
  return all;
}

const std::vector<const KindInfo*>& SubresourceKinds() {
  static const std::vector<const KindInfo*> all = {&internal::TokenRequestKind()};
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

const KindInfo& LeaseKind() { return internal::LeaseKind(); }
const KindInfo& LeaseCandidateKind() { return internal::LeaseCandidateKind(); }
const KindInfo& ConfigMapKind() { return internal::ConfigMapKind(); }
const KindInfo& NamespaceKind() { return internal::NamespaceKind(); }
const KindInfo& EventKind() { return internal::EventKind(); }
const KindInfo& EventsV1EventKind() { return internal::EventsV1EventKind(); }
const KindInfo& RoleKind() { return internal::RoleKind(); }
const KindInfo& ClusterRoleKind() { return internal::ClusterRoleKind(); }
const KindInfo& RoleBindingKind() { return internal::RoleBindingKind(); }
const KindInfo& ClusterRoleBindingKind() { return internal::ClusterRoleBindingKind(); }
const KindInfo& SelfSubjectAccessReviewKind() { return internal::SelfSubjectAccessReviewKind(); }
const KindInfo& SubjectAccessReviewKind() { return internal::SubjectAccessReviewKind(); }
const KindInfo& LocalSubjectAccessReviewKind() { return internal::LocalSubjectAccessReviewKind(); }
const KindInfo& SelfSubjectRulesReviewKind() { return internal::SelfSubjectRulesReviewKind(); }
const KindInfo& SelfSubjectReviewKind() { return internal::SelfSubjectReviewKind(); }
const KindInfo& ServiceAccountKind() { return internal::ServiceAccountKind(); }
const KindInfo& TokenRequestKind() { return internal::TokenRequestKind(); }

}  // namespace tenure::api
