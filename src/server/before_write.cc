// BeforeCreate / BeforeUpdate: metadata, the URL's name and namespace, then the kind's strategy.
#include "server/before_write.h"

#include <nlohmann/json.hpp>

#include "server/namespace_strategy.h"
#include "server/object_meta.h"
#include "server/resource_errors.h"

namespace tenure::server {
namespace {

using nlohmann::json;

// A namespaced object takes the URL's namespace; a different one in the body is an error.
Status ClaimNamespace(const api::KindInfo& kind, const RequestInfo& info, json& object) {
  if (!kind.namespaced) return Status::Ok();
  std::string ns = MetadataString(object, "namespace");
  if (!ns.empty() && ns != info.namespace_) {
    return Status::BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  object["metadata"]["namespace"] = info.namespace_;
  return Status::Ok();
}

Status Admit(const WriteContext& context, const api::KindInfo& kind, const json& object,
             bool creating) {
  if (context.admit == nullptr || !*context.admit) return Status::Ok();
  return (*context.admit)(kind, object, creating);
}

}  // namespace

Status BeforeCreate(const KindStrategy& strategy, const WriteContext& context, json& object) {
  const api::KindInfo& kind = strategy.kind();
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (Status s = ClaimNamespace(kind, context.info, object); !s.ok()) return s;
  std::string name = MetadataString(object, "name");
  std::string generate = MetadataString(object, "generateName");
  if (kind.namespaced) {
    // Admission names the object as sent (kube: its generateName before a name is generated).
    Status s = AdmitIntoNamespace(context.store, kind, context.info.namespace_,
                                  name.empty() ? generate : name, context.deadline);
    if (!s.ok()) return s;
  } else {
    meta.erase("namespace");
  }
  if (meta.contains("resourceVersion")) {
    return Status::BadRequest("resourceVersion should not be set on objects to be created");
  }
  if (name.empty() && !generate.empty()) meta["name"] = GeneratedName(generate);
  FillSystemFields(object, context.clock);
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("generation");
  strategy.Default(object);
  strategy.PrepareForCreate(object);
  if (Status s = WithDetails(strategy.Validate(object), kind, MetadataString(object, "name"));
      !s.ok()) {
    return s;
  }
  return Admit(context, kind, object, /*creating=*/true);
}

Status BeforeUpdate(const KindStrategy& strategy, const WriteContext& context,
                    const json& old_object, json& object) {
  const api::KindInfo& kind = strategy.kind();
  json& meta = object["metadata"];
  std::string name = MetadataString(object, "name");
  if (name != context.info.name) {
    return Status::BadRequest("the name of the object (" + name +
                              ") does not match the name on the URL (" + context.info.name + ")");
  }
  if (Status s = ClaimNamespace(kind, context.info, object); !s.ok()) return s;
  const json& old_meta = old_object["metadata"];
  for (const char* owned : {"uid", "creationTimestamp"}) {
    if (old_meta.contains(owned)) meta[owned] = old_meta[owned];
  }
  meta.erase("resourceVersion");
  // As kube's rest.BeforeUpdate: an update never sets, removes or moves a deletion timestamp.
  meta.erase("deletionTimestamp");
  if (old_meta.contains("deletionTimestamp"))
    meta["deletionTimestamp"] = old_meta["deletionTimestamp"];
  meta.erase("generation");
  strategy.Default(object);
  strategy.PrepareForUpdate(object, old_object, context.info.subresource);
  const std::string& subresource = context.info.subresource;
  Status valid = subresource.empty()
                     ? strategy.ValidateUpdate(object, old_object)
                     : strategy.ValidateSubresourceUpdate(subresource, object, old_object);
  if (Status s = WithDetails(valid, kind, name); !s.ok()) {
    return s;
  }
  return Admit(context, kind, object, /*creating=*/false);
}

Status CheckNameIsTheUrls(const RequestInfo& info, const json& object) {
  if (MetadataString(object, "name") == info.name) return Status::Ok();
  return Status::BadRequest("the name of the object does not match the name on the URL (" +
                            info.name + ")");
}

}  // namespace tenure::server
