// ConfigMapLock: the record as JSON in the annotation control-plane.alpha.kubernetes.io/leader.
#include "election/kube_object_lock.h"
#include "election/leader_annotation.h"

namespace tenure {

using nlohmann::json;

namespace {

class ConfigMapLock final : public KubeObjectLock {
 public:
  using KubeObjectLock::KubeObjectLock;

 protected:
  std::string CollectionPath() const override {
    return "/api/v1/namespaces/" + options().namespace_ + "/configmaps";
  }
  std::string Kind() const override { return "ConfigMap"; }
  std::string ApiVersion() const override { return "v1"; }

  json NewObject(const LeaderElectionRecord& record) const override {
    json object = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", options().name}, {"namespace", options().namespace_}}}};
    PutRecord(object, record);
    return object;
  }

  void PutRecord(json& object, const LeaderElectionRecord& r) const override {
    object["metadata"]["annotations"][kLeaderAnnotation] = FormatLeaderAnnotation(r);
  }

  Result<ObservedRecord> ReadRecord(const json& object) const override {
    ObservedRecord out;
    out.version =
        std::stoll(object.value("/metadata/resourceVersion"_json_pointer, std::string("0")));
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
