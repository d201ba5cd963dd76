// Namespace's strategy (defaults, kept status, deletion) and admission into a namespace.
#include "server/namespace_strategy.h"

#include <nlohmann/json.hpp>

#include "server/resource_errors.h"
#include "server/storage_key.h"

namespace tenure::server {
namespace {

using nlohmann::json;

class NamespaceStrategy final : public KindStrategy {
 public:
  using KindStrategy::KindStrategy;

  void Default(json& object) const override {
    const json& name = object["metadata"]["name"];
    if (name.is_string()) object["metadata"]["labels"]["kubernetes.io/metadata.name"] = name;
  }

  void PrepareForCreate(json& object) const override {
    object["spec"]["finalizers"] = json::array({"kubernetes"});
    object["status"]["phase"] = "Active";
  }

  void PrepareForUpdate(json& object, const json& old_object) const override {
    if (!object.contains("status")) object["status"] = old_object.value("status", json::object());
  }

  // PrepareForUpdate reads the stored status.
  bool UpdateReadsOnlyOldMetadata() const override { return false; }

  Status ValidateDelete(const std::string& name) const override {
    if (name == "default" || name == "kube-system" || name == "kube-public") {
      return WithDetails(
          Status(Reason::kForbidden,
                 "namespaces \"" + name + "\" is forbidden: this namespace may not be deleted"),
          kind(), name);
    }
    return Status::Ok();
  }

  // kube does it through the namespace controller, asynchronously; here the deletes are sent
  // before the namespace's own.
  void DeleteDependents(store::Store& store, const std::string& name) const override {
    for (const api::KindInfo* k : api::AllKinds()) {
      if (!k->namespaced) continue;
      auto contents = store.List(StoragePrefix(*k, name));
      if (!contents.ok()) continue;
      for (const auto& kv : contents->items) {
        store.Write({store::WriteOp::Kind::kDelete, kv.key, "", 0}, [](auto) {});
      }
    }
  }
};

}  // namespace

std::unique_ptr<KindStrategy> MakeNamespaceStrategy(const api::KindInfo& kind) {
  return std::make_unique<NamespaceStrategy>(kind);
}

Status AdmitIntoNamespace(store::Store& store, const std::string& ns, store::Deadline deadline) {
  const api::KindInfo* ns_kind = api::FindByResource("", "namespaces");
  if (!store.GetBefore(StorageKey(*ns_kind, "", ns), deadline).ok()) return NamespaceNotFound(ns);
  return Status::Ok();
}

}  // namespace tenure::server
