// ConfigMapLock: the record as JSON in the annotation control-plane.alpha.kubernetes.io/leader.
#include "api/codec.h"
#include "election/kube_object_lock.h"
#include "election/leader_annotation.h"

namespace tenure {

using nlohmann::json;

namespace {

class ConfigMapLock final : public KubeObjectLock {
 public:
  ConfigMapLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options)
      : KubeObjectLock(std::move(cluster), std::move(options), api::ConfigMapKind(), "v1") {}

 protected:
  json NewObject(const LeaderElectionRecord& record) const override {
    api::ConfigMap configmap;
    configmap.metadata.name = options().name;
    configmap.metadata.namespace_ = options().namespace_;
    configmap.metadata.annotations[kLeaderAnnotation] = FormatLeaderAnnotation(record);
    return api::ToJson(configmap);
  }

  const char* RecordMember() const override { return "metadata"; }

  // Into the metadata as the server returned it: its other annotations stay as they are.
  void PutRecord(json& metadata, const LeaderElectionRecord& r) const override {
    json alone = json::object();
    if (!metadata.is_null()) alone["metadata"] = std::move(metadata);
    api::ConfigMap configmap = api::LenientConfigMap(alone);
    configmap.original = api::WireOriginal(std::make_shared<const json>(std::move(alone)));
    configmap.metadata.annotations[kLeaderAnnotation] = FormatLeaderAnnotation(r);
    json encoded = api::ToJson(configmap);
    metadata = std::move(encoded["metadata"]);
  }

  void ReadRecord(json metadata, ObservedRecord& out) const override {
    json alone = json::object();
    if (!metadata.is_null()) alone["metadata"] = std::move(metadata);
    const api::ConfigMap configmap = api::LenientConfigMap(alone);
    if (auto it = configmap.metadata.annotations.find(kLeaderAnnotation);
        it != configmap.metadata.annotations.end()) {
      out.raw = it->second;
    }
    out.record = ParseLeaderAnnotation(out.raw);
  }
};

}  // namespace

std::shared_ptr<Lock> NewConfigMapLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options) {
  return std::make_shared<ConfigMapLock>(std::move(cluster), std::move(options));
}

}  // namespace tenure
