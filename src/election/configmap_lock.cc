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

  // Into the object as the server returned it: its data and other annotations stay as they are.
  void PutRecord(json& object, const LeaderElectionRecord& r) const override {
    object["metadata"]["annotations"][kLeaderAnnotation] = FormatLeaderAnnotation(r);
  }

  Result<ObservedRecord> ReadRecord(const json& object) const override {
    auto version = VersionOf(object);
    if (!version.ok()) return version.status();
    ObservedRecord out;
    out.version = *version;
    std::string text;
    if (auto a = object.find("metadata"); a != object.end()) {
      if (auto ann = a->find("annotations"); ann != a->end() && ann->is_object()) {
        text = ann->value(kLeaderAnnotation, "");
      }
    }
    out.raw = text;
    out.record = ParseLeaderAnnotation(text);
    return out;
  }
};

}  // namespace

std::shared_ptr<Lock> NewConfigMapLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options) {
  return std::make_shared<ConfigMapLock>(std::move(cluster), std::move(options));
}

}  // namespace tenure
