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

}  // namespace tenure::api::internal
