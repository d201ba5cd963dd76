// ResourceApi: the REST verbs of every served kind over the Store, with kube-apiserver's
// semantics (optimistic concurrency on resourceVersion, no-op writes keep the resourceVersion,
// namespace existence, Tables, selectors, watch with resume and 410 Expired).
//
// Objects are stored in canonical JSON without metadata.resourceVersion under
// "/registry/<resource>/<namespace>/<name>" (cluster-scoped: "/registry/<resource>/<name>");
// the resourceVersion is the store's mod_revision and is added when an object is sent.
#pragma once

#include <memory>
#include <string>

#include "api/kinds.h"
#include "server/http_server.h"
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

  static std::string StorageKey(const api::KindInfo& kind, const std::string& ns,
                                const std::string& name);
  static std::string StoragePrefix(const api::KindInfo& kind, const std::string& ns);

 private:
  struct Call;
  void Get(std::shared_ptr<Call> call);
  void List(std::shared_ptr<Call> call);
  void Watch(std::shared_ptr<Call> call);
  void Create(std::shared_ptr<Call> call);
  void Update(std::shared_ptr<Call> call);
  void Patch(std::shared_ptr<Call> call, int attempt);
  void Delete(std::shared_ptr<Call> call);
  void DeleteCollection(std::shared_ptr<Call> call);
  // Writes `object` (canonical, validated) over `existing` with compare-and-swap.
  void StoreUpdate(std::shared_ptr<Call> call, nlohmann::json object, store::KeyValue existing,
                   int64_t expected_revision, std::function<void()> on_conflict);
  void StoreCreate(std::shared_ptr<Call> call, nlohmann::json object);

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<Clock> clock_;
};

}  // namespace tenure::server
