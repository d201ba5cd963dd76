// Internal: the description of each kind tenure serves, one per kind_<name>.cc; kinds.cc lists
// them in AllKinds().
#pragma once

#include "api/description.h"

namespace tenure::api::internal {

const KindDescription& LeaseKind();
const KindDescription& LeaseCandidateKind();
const KindDescription& ConfigMapKind();
const KindDescription& NamespaceKind();
const KindDescription& EventKind();
const KindDescription& RoleKind();  // kind_rbac.cc
const KindDescription& ClusterRoleKind();
const KindDescription& RoleBindingKind();
const KindDescription& ClusterRoleBindingKind();
const KindDescription& SelfSubjectAccessReviewKind();  // kind_reviews.cc
const KindDescription& SubjectAccessReviewKind();
const KindDescription& LocalSubjectAccessReviewKind();
const KindDescription& SelfSubjectRulesReviewKind();
const KindDescription& SelfSubjectReviewKind();
const KindDescription& ServiceAccountKind();  // kind_service_account.cc
const KindDescription& TokenRequestKind();    // kind_token_request.cc

const KindDescription& EventsV1EventKind();  // kind_events_v1.cc

// core/v1 ObjectReference and EventSource (kind_event.cc), shared by the kinds that hold one
// (their OpenAPI names stay core/v1's wherever they appear).
inline constexpr std::string_view kCoreV1Package = "io.k8s.api.core.v1.";
const ObjectDescription& ObjectReferenceObject();
const ObjectDescription& EventSourceObject();
// core/v1 Event's Table columns (kind_event.cc); events.k8s.io/v1 shows the same ones.
std::vector<TableColumn> EventTableColumns();
// The field selector labels of core/v1 Events, which events.k8s.io/v1 takes as they are: kube
// matches both on the stored core form (involvedObject.*, reason, reportingComponent, source,
// type).
std::vector<SelectorField> EventSelectorFields();

}  // namespace tenure::api::internal
