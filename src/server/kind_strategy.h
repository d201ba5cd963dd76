// KindStrategy: what the server does differently per kind, behind the kind-agnostic REST verbs
// of ResourceApi, as kube-apiserver's rest.RESTCreateStrategy / RESTUpdateStrategy /
// RESTDeleteStrategy and TableConvertor do for its registries.
//
// The base class is the behaviour of a kind with nothing of its own: the kind's flags, schema,
// validation and Table columns come from the api layer (api/kinds.h). A kind with more (defaults,
// fields a client cannot set, a delete that takes other objects along) derives from it, in a
// file of its own, and is one entry of the table in kind_strategy.cc. What every kind gets
// (server-owned metadata, the URL's name and namespace, namespace lifecycle) is not a hook: see
// BeforeCreate / BeforeUpdate (before_write.h).
//
// Objects are canonical JSON (api::Canonicalize). Strategies hold no state; every hook may run
// on any request thread at once.
#pragma once

#include <chrono>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "store/store.h"
#include "tenure/clock.h"
#include "tenure/status.h"

namespace tenure::server {

class KindStrategy {
 public:
  explicit KindStrategy(const api::KindInfo& kind) : kind_(kind) {}
  virtual ~KindStrategy() = default;
  KindStrategy(const KindStrategy&) = delete;
  KindStrategy& operator=(const KindStrategy&) = delete;

  const api::KindInfo& kind() const { return kind_; }

  // Whether PUT of a missing object creates it (AllowCreateOnUpdate), and whether PUT without
  // metadata.resourceVersion is allowed (AllowUnconditionalUpdate). Default: the kind's flags.
  virtual bool AllowCreateOnUpdate() const;
  virtual bool AllowUnconditionalUpdate() const;

  // Defaults of every write, create and update, once the server-owned metadata is set (kube's
  // defaulting functions). Default: none.
  virtual void Default(nlohmann::json& object) const;
  // What a new object starts with, after Default (PrepareForCreate). Default: nothing.
  virtual void PrepareForCreate(nlohmann::json& object) const;
  // What an update keeps from the stored object, after Default (PrepareForUpdate); an update of
  // a subresource the kind serves (`subresource` not empty; KindInfo::subresources) takes from
  // the body only what that subresource writes. Default: nothing beyond the metadata
  // BeforeUpdate keeps.
  virtual void PrepareForUpdate(nlohmann::json& object, const nlohmann::json& old_object,
                                std::string_view subresource) const;
  // The top-level fields the strategy sets itself on writes through `subresource` ("" for the
  // object): owned by no manager (kube's ResetFieldsFor). Default: none.
  virtual std::vector<std::string_view> ResetFields(std::string_view subresource) const;

  // Validation with kube-apiserver's messages. Default: api::ValidateCreate / ValidateUpdate.
  virtual Status Validate(const nlohmann::json& object) const;
  virtual Status ValidateUpdate(const nlohmann::json& object,
                                const nlohmann::json& old_object) const;
  // Validation of an update through a subresource. Default: ValidateUpdate.
  virtual Status ValidateSubresourceUpdate(std::string_view subresource,
                                           const nlohmann::json& object,
                                           const nlohmann::json& old_object) const;
  // True when PrepareForUpdate and ValidateUpdate read nothing of the old object but its
  // metadata: the update hot path (lease renewals) then decodes only the stored metadata.
  virtual bool UpdateReadsOnlyOldMetadata() const;

  // Whether the object named `name` may be deleted (Forbidden and the like). Default: yes.
  virtual Status ValidateDelete(const std::string& name) const;
  // Graceful deletion, as kube's BeforeDelete for an object with finalizers: what to store in
  // place of deleting `stored` (a Namespace marked Terminating, its content then removed by the
  // NamespaceController), nullopt to delete it now, or why it cannot be deleted now. Default:
  // delete now.
  virtual Result<std::optional<nlohmann::json>> DeleteInstead(const nlohmann::json& stored,
                                                              const Clock& clock) const;

  // Table columns and one row's cells (kubectl get). Default: api::TableColumns / TableCells.
  virtual nlohmann::json TableColumns() const;
  virtual nlohmann::json TableCells(const nlohmann::json& object,
                                    std::chrono::system_clock::time_point now) const;

 private:
  const api::KindInfo& kind_;
};

// The strategy of a served kind (one of api::AllKinds()). Throws std::invalid_argument for any
// other KindInfo.
const KindStrategy& StrategyFor(const api::KindInfo& kind);

}  // namespace tenure::server
