// Namespace's strategy (defaults, kept status, deletion) and admission into a namespace.
#include "server/namespace_strategy.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/time.h"
#include "api/validation.h"
#include "server/object_meta.h"
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

  // As kube: a new namespace is Active and has the "kubernetes" finalizer, after any it names.
  void PrepareForCreate(json& object) const override {
    json& finalizers = object["spec"]["finalizers"];
    if (!finalizers.is_array()) finalizers = json::array();
    if (std::find(finalizers.begin(), finalizers.end(), "kubernetes") == finalizers.end()) {
      finalizers.push_back("kubernetes");
    }
    object["status"] = {{"phase", "Active"}};
  }

  // As kube's namespace strategies: a plain update changes neither spec.finalizers nor the status;
  // the finalize subresource changes spec.finalizers (and metadata), never the status.
  void PrepareForUpdate(json& object, const json& old_object,
                        std::string_view subresource) const override {
    if (subresource == "status") {
      // kube's namespaceStatusStrategy: the status, never the spec.
      object["spec"] = old_object.value("spec", json::object());
      return;
    }
    object["status"] = old_object.value("status", json::object());
    if (subresource == "finalize") return;
    const json* finalizers = nullptr;
    if (auto spec = old_object.find("spec"); spec != old_object.end() && spec->is_object()) {
      if (auto f = spec->find("finalizers"); f != spec->end()) finalizers = &*f;
    }
    if (finalizers != nullptr) {
      object["spec"]["finalizers"] = *finalizers;
    } else if (object.contains("spec") && object["spec"].is_object()) {
      object["spec"].erase("finalizers");
    }
  }

  // kube resets the status on the object and on finalize, the spec on status. (Its list for the
  // object also names "spec.finalizers", as one field of that name, which no object has:
  // spec.finalizers is owned as any other field.)
  std::vector<std::string_view> ResetFields(std::string_view subresource) const override {
    if (subresource == "status") return {"spec"};
    return {"status"};
  }

  // kube's ValidateNamespaceStatusUpdate: the phase follows the deletion timestamp.
  Status ValidateSubresourceUpdate(std::string_view subresource, const json& object,
                                   const json& old_object) const override {
    if (subresource != "status") return ValidateUpdate(object, old_object);
    if (Status s = ValidateUpdate(object, old_object); !s.ok()) return s;
    const bool deleting = object["metadata"].contains("deletionTimestamp");
    const std::string phase = object.value("status", json::object()).value("phase", "");
    if (phase == (deleting ? "Terminating" : "Active")) return Status::Ok();
    api::FieldErrors errs{
        api::Invalid("status.Phase", phase,
                     deleting ? "may only be 'Terminating' if `deletionTimestamp` is not empty"
                              : "may only be 'Active' if `deletionTimestamp` is empty")};
    return api::InvalidStatus("Namespace", MetadataString(object, "name"), errs);
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

  // As kube's namespace storage: the first delete marks the namespace Terminating; while
  // spec.finalizers remain (the NamespaceController removes its content, then "kubernetes") it
  // stays, and a second delete is 409. Without them it goes at once.
  Result<std::optional<json>> DeleteInstead(const json& stored, const Clock& clock) const override {
    if (!HasSpecFinalizers(stored)) return std::optional<json>();
    const std::string name = MetadataString(stored, "name");
    if (IsTerminating(stored)) {
      return WithDetails(
          Status::Conflict("Operation cannot be fulfilled on namespaces \"" + name +
                           "\": The system is ensuring all content is removed from this "
                           "namespace.  Upon completion, this namespace will automatically be "
                           "purged by the system."),
          kind(), name);
    }
    json marked = stored;
    marked["metadata"]["deletionTimestamp"] = api::FormatTime(clock.wall_now());
    marked["status"]["phase"] = "Terminating";
    return std::optional<json>(std::move(marked));
  }
};

}  // namespace

std::unique_ptr<KindStrategy> MakeNamespaceStrategy(const api::KindInfo& kind) {
  return std::make_unique<NamespaceStrategy>(kind);
}

Status AdmitIntoNamespace(store::Store& store, const api::KindInfo& kind, const std::string& ns,
                          const std::string& name, store::Deadline deadline) {
  auto stored = store.GetBefore(StorageKey(api::NamespaceKind(), "", ns), deadline);
  // Only NotFound means there is no such namespace (kube's NamespaceLifecycle): a store that
  // cannot answer says so itself (503 or 504), and the client tries again.
  if (!stored.ok()) return stored.status().IsNotFound() ? NamespaceNotFound(ns) : stored.status();
  // Only a terminating namespace is parsed: the stored text says so without it, mostly.
  if (stored->value.find("deletionTimestamp") == std::string::npos) return Status::Ok();
  json object = json::parse(stored->value, nullptr, false);
  if (!IsTerminating(object)) return Status::Ok();
  return WithDetails(Status(Reason::kForbidden,
                            kind.qualified_resource() + " \"" + name +
                                "\" is forbidden: unable to create new content in namespace " + ns +
                                " because it is being terminated",
                            {{.type = "NamespaceTerminating",
                              .message = "namespace " + ns + " is being terminated",
                              .field = "metadata.namespace"}}),
                     kind, name);
}

bool IsTerminating(const json& ns) {
  auto meta = ns.find("metadata");
  return meta != ns.end() && meta->is_object() && meta->contains("deletionTimestamp");
}

bool HasSpecFinalizers(const json& ns) {
  auto spec = ns.find("spec");
  if (spec == ns.end() || !spec->is_object()) return false;
  auto f = spec->find("finalizers");
  return f != spec->end() && f->is_array() && !f->empty();
}

bool HasFinalizers(const json& ns) {
  if (HasSpecFinalizers(ns)) return true;
  auto meta = ns.find("metadata");
  if (meta != ns.end() && meta->is_object()) {
    auto f = meta->find("finalizers");
    if (f != meta->end() && f->is_array() && !f->empty()) return true;
  }
  return false;
}

}  // namespace tenure::server
