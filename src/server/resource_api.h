// ResourceApi: the REST verbs of every served kind over the Store, with kube-apiserver's
// semantics (optimistic concurrency on resourceVersion, no-op writes keep the resourceVersion,
// Tables, selectors, watch with resume and 410 Expired). The verbs are the same code for every
// kind: what a kind does of its own (defaults, validation, namespace lifecycle, Table columns)
// is its KindStrategy (kind_strategy.h), reached through BeforeCreate / BeforeUpdate
// (before_write.h). Objects are stored as storage_key.h says.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "api/kinds.h"
#include "server/http_server.h"
#include "server/patch.h"
#include "server/request_info.h"
#include "store/store.h"
#include "tenure/clock.h"

namespace tenure::server {

class ResourceApi {
 public:
  ResourceApi(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock);

  // `kind` is the kind info.resource names; `info.version` is one it serves.
  void Handle(const RequestInfo& info, const api::KindInfo& kind, HttpRequest request,
              std::shared_ptr<Responder> responder);

  // Creates the object if it does not exist (used at startup for the built-in namespaces).
  Status EnsureExists(const api::KindInfo& kind, const std::string& object_json);

 private:
  struct Call;
  void Get(std::shared_ptr<Call> call);
  void List(std::shared_ptr<Call> call);
  void Watch(std::shared_ptr<Call> call);
  void Create(std::shared_ptr<Call> call);
  // use_known: start from the store's KnownValue of the version the client names, if any.
  void Update(std::shared_ptr<Call> call, bool use_known = true);
  void Patch(std::shared_ptr<Call> call);
  void Delete(std::shared_ptr<Call> call);
  void DeleteCollection(std::shared_ptr<Call> call);
  // Writes `value` (the prepared object, serialized) over `existing` (the version it replaces;
  // when `value` equals it, it must have been read, as the no-op answer keeps its
  // resourceVersion) with compare-and-swap on `expected_revision`. When the store answers
  // Conflict or NotFound, on_conflict / on_not_found run instead of failing, if given.
  void StoreUpdate(std::shared_ptr<Call> call, std::string value, store::KeyValue existing,
                   int64_t expected_revision, std::function<void()> on_conflict,
                   std::function<void()> on_not_found = nullptr);
  // Prepares a new object (BeforeCreate) and stores it: 201 with the object.
  void CreateObject(const std::shared_ptr<Call>& call, nlohmann::json object);

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<Clock> clock_;
};

}  // namespace tenure::server
