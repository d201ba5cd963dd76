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

// core/v1 ObjectReference (kind_event.cc), shared by the kinds that hold one.
const ObjectDescription& ObjectReferenceObject();

}  // namespace tenure::api::internal
