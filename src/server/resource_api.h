// ResourceApi: the REST verbs of every served kind over the Store, with kube-apiserver's
// semantics (optimistic concurrency on resourceVersion, no-op writes keep the resourceVersion,
// Tables, selectors, watch with resume and 410 Expired). The verbs are the same code for every
// kind: what a kind does of its own (defaults, validation, namespace lifecycle, Table columns)
// is its KindStrategy (kind_strategy.h), reached through BeforeCreate / BeforeUpdate
// (before_write.h); updates and patches retry through GuaranteedUpdate (guaranteed_update.h).
// Objects are stored as storage_key.h says.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "api/kinds.h"
#include "server/before_write.h"
#include "server/guaranteed_update.h"
#include "server/http_server.h"
#include "server/patch.h"
#include "server/request_info.h"
#include "server/request_metrics.h"
#include "server/revision_waiter.h"
#include "store/store.h"
#include "tenure/clock.h"

namespace tenure::server {

class ResourceApi {
 public:
  // `metrics` (optional) counts the events sent to watchers.
  ResourceApi(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock,
              std::shared_ptr<RequestMetrics> metrics = nullptr);

  // `kind` is the kind info.resource names; `info.version` is one it serves. Every object the
  // request writes must also pass `admit` (none when empty). `warnings` go with the answer
  // (kube's deprecation warning of the version).
  void Handle(const RequestInfo& info, const api::KindInfo& kind, HttpRequest request,
              std::shared_ptr<Responder> responder, WriteAdmission admit = {},
              std::vector<std::string> warnings = {});

  // Creates the object if it does not exist (used at startup for the built-in namespaces).
  Status EnsureExists(const api::KindInfo& kind, const std::string& object_json);
  // Brings the stored object up to date with `desired` (canonical): changes the stored object
  // (canonical, without resourceVersion) and returns whether it changed anything.
  using Reconciler = std::function<bool(nlohmann::json& stored, const nlohmann::json& desired)>;
  // Creates the object when it does not exist; otherwise lets `reconcile` (null: nothing) update
  // it, and stores the result with compare-and-swap (kube's reconciliation of its bootstrap
  // policy at startup).
  Status Reconcile(const api::KindInfo& kind, const std::string& object_json,
                   const Reconciler& reconcile);

 private:
  struct Call;
  void Get(std::shared_ptr<Call> call);
  void List(std::shared_ptr<Call> call);
  void Watch(std::shared_ptr<Call> call);
  void Create(std::shared_ptr<Call> call);
  void Update(std::shared_ptr<Call> call);
  void Patch(std::shared_ptr<Call> call);
  void Delete(std::shared_ptr<Call> call);
  void DeleteCollection(std::shared_ptr<Call> call);

  // The request's body as a canonical object of the call's kind.
  static Result<nlohmann::json> DecodedObject(Call& call);
  // One attempt of an update with the body's canonical object naming resourceVersion `rv` (0:
  // none). The first attempt that prepares a write takes `body` (no copy); a later one decodes
  // the body again (after a conflict: rare). `first`: it may start from the store's KnownValue
  // of that version.
  UpdateStep UpdateAttempt(const std::shared_ptr<Call>& call, std::optional<nlohmann::json>& body,
                           int64_t rv, bool first);
  // One attempt of a patch of type `type` with the parsed `patch`.
  UpdateStep PatchAttempt(const std::shared_ptr<Call>& call, PatchType type,
                          const nlohmann::json& patch);
  // Runs update attempts until one ends the call; the final write answers 200 with the object.
  void RunUpdate(const std::shared_ptr<Call>& call, std::function<UpdateStep(bool first)> attempt);
  // The step that writes `value` (the prepared object, serialized) over `existing` (the version
  // it was prepared from; when `value` equals it, it must have been read, as the no-op answer
  // keeps its resourceVersion) with compare-and-swap on `expected_revision`; a no-op or a dry
  // run is answered at once.
  UpdateStep WriteStep(Call& call, std::string value, store::KeyValue existing,
                       int64_t expected_revision, bool again_on_conflict, bool again_on_not_found);
  // Records the manager of a create (or an update that creates) in the object's managedFields.
  void RecordCreate(const Call& call, nlohmann::json& object) const;
  // Prepares a new object (BeforeCreate) and stores it: 201 with the object.
  void CreateObject(const std::shared_ptr<Call>& call, nlohmann::json object);

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<Clock> clock_;
  std::shared_ptr<RequestMetrics> metrics_;
  RevisionWaiter waiter_;  // reads of versions not reached yet wait here, up to 3 s
};

}  // namespace tenure::server
