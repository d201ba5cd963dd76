// LeaseLock: the record is a coordination.k8s.io/v1 Lease's spec.
#include "api/time.h"
#include "election/kube_object_lock.h"

namespace tenure {

using nlohmann::json;

namespace {

std::chrono::system_clock::time_point ParseOr(const json& spec, const char* field) {
  auto it = spec.find(field);
  if (it == spec.end() || !it->is_string()) return {};
  return api::ParseTime(it->get<std::string>()).value_or(std::chrono::system_clock::time_point{});
}

class LeaseLock final : public KubeObjectLock {
 public:
  using KubeObjectLock::KubeObjectLock;

 protected:
  std::string CollectionPath() const override {
    return "/apis/coordination.k8s.io/v1/namespaces/" + options().namespace_ + "/leases";
  }
  std::string Kind() const override { return "Lease"; }
  std::string ApiVersion() const override { return "coordination.k8s.io/v1"; }

  json NewObject(const LeaderElectionRecord& record) const override {
    json object = {{"apiVersion", "coordination.k8s.io/v1"},
                   {"kind", "Lease"},
                   {"metadata", {{"name", options().name}, {"namespace", options().namespace_}}}};
    PutRecord(object, record);
    return object;
  }

  void PutRecord(json& object, const LeaderElectionRecord& r) const override {
    json spec = {{"holderIdentity", r.holder_identity},
                 {"leaseDurationSeconds", r.lease_duration_seconds},
                 {"acquireTime", api::FormatMicroTime(r.acquire_time)},
                 {"renewTime", api::FormatMicroTime(r.renew_time)},
                 {"leaseTransitions", r.leader_transitions}};
    // Only a coordinated elector keeps these; client-go's writes drop them too.
    if (!r.strategy.empty()) spec["strategy"] = r.strategy;
    if (!r.preferred_holder.empty()) spec["preferredHolder"] = r.preferred_holder;
    object["spec"] = std::move(spec);
  }

  Result<ObservedRecord> ReadRecord(const json& object) const override {
    ObservedRecord out;
    out.version =
        std::stoll(object.value("/metadata/resourceVersion"_json_pointer, std::string("0")));
    const json spec = object.value("spec", json::object());
    LeaderElectionRecord& r = out.record;
    r.holder_identity = spec.value("holderIdentity", "");
    r.lease_duration_seconds = spec.value("leaseDurationSeconds", 0);
    r.acquire_time = ParseOr(spec, "acquireTime");
    r.renew_time = ParseOr(spec, "renewTime");
    r.leader_transitions = spec.value("leaseTransitions", 0);
    r.strategy = spec.value("strategy", "");
    r.preferred_holder = spec.value("preferredHolder", "");
    out.raw = spec.dump();
    return out;
  }
};

}  // namespace

std::shared_ptr<Lock> NewLeaseLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options) {
  return std::make_shared<LeaseLock>(std::move(cluster), std::move(options));
}

}  // namespace tenure
