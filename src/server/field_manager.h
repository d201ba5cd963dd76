// FieldManager: metadata.managedFields as kube-apiserver keeps them on every write
// (k8s.io/apimachinery's managedfields package around the structured merge of
// structured_merge.h), and server-side apply.
//
// An update (create, PUT, a non-apply patch) records its manager with operation Update and the
// request's API version as owning every field it added or changed; an apply merges the applied
// configuration in, owning exactly the fields it sets, answers 409 when it would change fields
// another manager owns (unless forced), and removes the fields it applied before and leaves out
// now when no one else owns them. Kube's details are kept: the "current-operation" update whose
// time changes only when it took fields, the fields never tracked (apiVersion, kind, name,
// namespace, uid, resourceVersion, ...), at most 10 Update managers (older ones merged into
// "ancient-changes"), objects whose fields no one manages left untracked by updates and given to
// "before-first-apply" by the first apply, kubectl's switch between client-side and server-side
// apply (the last-applied-configuration annotation), and the entries' order.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "api/validation.h"
#include "server/structured_merge.h"
#include "tenure/clock.h"
#include "tenure/status.h"

namespace tenure::server {

// The manager of a write that names none: the User-Agent before its first "/", printable
// characters only, at most 128 bytes (kube's prefixFromUserAgent).
std::string ManagerOrUserAgent(std::string_view field_manager, std::string_view user_agent);

// kube's ValidateFieldManager: at most 128 bytes, printable characters only.
api::FieldErrors FieldManagerErrors(std::string_view field_manager);

class FieldManager {
 public:
  // Writes of `kind` at `version` through `subresource` ("" for the object itself); the
  // top-level fields in `reset_fields` are the strategy's to set, owned by no one (a
  // Namespace's status).
  FieldManager(const api::KindInfo& kind, std::string_view version, std::string subresource,
               std::vector<std::string_view> reset_fields, const Clock& clock);
  ~FieldManager();
  FieldManager(const FieldManager&) = delete;
  FieldManager& operator=(const FieldManager&) = delete;

  // The kind's empty object at the request's version: what a created object is compared with.
  nlohmann::json EmptyObject() const;

  // Sets object.metadata.managedFields for `manager`'s write of `object` over `live` (the
  // stored object, or EmptyObject() for a create). The request's own managedFields are kept when
  // they decode (a subresource write ignores them); `[]` or `[{}]` clears them. Never fails: on
  // an error the live object's entries are kept.
  void Update(const nlohmann::json& live, nlohmann::json& object, std::string_view manager) const;

  // `config` (the apply body) applied by `manager` over `live` (EmptyObject() when the object
  // does not exist): the new object with its managedFields, not yet canonical. BadRequest for a
  // body of another kind or version, or one that sets managedFields; Unknown (kube's 500
  // without a reason) for fields the schema does not declare or values of the wrong type;
  // Conflict with kube's message and FieldManagerConflict causes.
  Result<nlohmann::json> Apply(const nlohmann::json& live, const nlohmann::json& config,
                               std::string_view manager, bool force) const;

 private:
  class Versions;
  struct Managed {
    ManagerSets sets;
    std::map<std::string, std::string> times;  // identifier -> RFC 3339 time
  };
  // Update when the write changes only fields the manager's own Update entry owns alone (a
  // renewal): that entry's time moves and nothing else, as the full computation gives. False
  // when it does not apply; `object` then carries the stored entries, which the full
  // computation takes as it would have taken them from the store.
  bool UpdateOwnFields(const nlohmann::json& live, nlohmann::json& object,
                       std::string_view manager) const;
  void UpdateManaged(const nlohmann::json& live, const nlohmann::json& object,
                     std::string_view manager, Managed& managed) const;
  Result<nlohmann::json> ApplyManaged(const nlohmann::json& live, const nlohmann::json& config,
                                      std::string_view manager, bool force, Managed& managed,
                                      std::vector<Conflict>* conflicts) const;
  Result<nlohmann::json> ApplyOrUpgrade(const nlohmann::json& live, const nlohmann::json& config,
                                        std::string_view manager, bool force,
                                        Managed& managed) const;
  std::string Identifier(std::string_view manager, bool apply) const;
  void CapUpdateManagers(Managed& managed) const;
  static Result<Managed> Decode(const nlohmann::json* entries);
  static nlohmann::json Encode(const Managed& managed);
  Status ConflictError(const std::vector<Conflict>& conflicts) const;

  const api::KindInfo& kind_;
  std::string api_version_;
  std::string subresource_;
  const Clock& clock_;
  std::unique_ptr<Versions> versions_;
  std::unique_ptr<StructuredMerge> merge_;
};

// kube's IgnoreManagedFieldsTimestampsTransformer: when `object` differs from `live` only in the
// times of its managedFields entries, it takes live's (a write that changes nothing must not
// change the resourceVersion).
void KeepManagedFieldsTimesOfNoOp(const nlohmann::json& live, nlohmann::json& object);

}  // namespace tenure::server
