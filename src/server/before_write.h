// BeforeCreate and BeforeUpdate: what every object goes through before it is stored, whatever
// its kind, calling the kind's strategy on the way (kube-apiserver's rest.BeforeCreate and
// rest.BeforeUpdate). Each answers the first error in kube-apiserver's order and words.
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>

#include "server/kind_strategy.h"
#include "server/request_info.h"
#include "store/store.h"
#include "tenure/clock.h"

namespace tenure::server {

// What a valid object must also pass before it is stored, for the user who writes it (the right
// to create when an update or apply creates, RBAC escalation prevention, rbac_escalation.h): OK,
// or the error that answers the request. `creating`: the write creates the object (a POST, or a
// PUT or apply of one that is missing).
using WriteAdmission =
    std::function<Status(const api::KindInfo& kind, const nlohmann::json& object, bool creating)>;

// The request a write belongs to.
struct WriteContext {
  const RequestInfo& info;                // the URL's namespace and name
  store::Store& store;                    // for the namespace admission
  store::Deadline deadline;               // the client's: reads wait no longer
  const Clock& clock;                     // creationTimestamp
  const WriteAdmission* admit = nullptr;  // null or empty: nothing more to pass
};

// A new object (canonical, from a create, a create on update or an apply): takes the URL's
// namespace (a different one in the body is BadRequest) and checks that the namespace exists and
// is not terminating (AdmitIntoNamespace); refuses a resourceVersion; fills the name from
// generateName, the uid and creationTimestamp, drops deletion fields and generation; then the
// strategy's Default,
// PrepareForCreate and Validate; then the context's admission.
Status BeforeCreate(const KindStrategy& strategy, const WriteContext& context,
                    nlohmann::json& object);

// An update of `old_object` (canonical; on the update hot path only its metadata, see
// KindStrategy::UpdateReadsOnlyOldMetadata): the name must be the URL's, the namespace is the
// URL's; keeps uid, creationTimestamp and the stored deletionTimestamp, drops resourceVersion,
// any other deletion timestamp and generation; then the strategy's Default, PrepareForUpdate and
// ValidateUpdate; then the context's admission.
Status BeforeUpdate(const KindStrategy& strategy, const WriteContext& context,
                    const nlohmann::json& old_object, nlohmann::json& object);

// BadRequest unless a new object written through a named URL (PUT that creates, apply) carries
// that name.
Status CheckNameIsTheUrls(const RequestInfo& info, const nlohmann::json& object);

}  // namespace tenure::server
