// LeaseLock: the record is a coordination.k8s.io/v1 Lease's spec.
#include "api/codec.h"
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

api::LeaseSpec SpecOf(const LeaderElectionRecord& r) {
  api::LeaseSpec spec;
  spec.holder_identity = r.holder_identity;
  spec.lease_duration_seconds = r.lease_duration_seconds;
  spec.acquire_time = r.acquire_time;
  spec.renew_time = r.renew_time;
  spec.lease_transitions = r.leader_transitions;
  // Only a coordinated elector keeps these; client-go's writes drop them too.
  if (!r.strategy.empty()) spec.strategy = r.strategy;
  if (!r.preferred_holder.empty()) spec.preferred_holder = r.preferred_holder;
  return spec;
}

class LeaseLock final : public KubeObjectLock {
 public:
  LeaseLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options)
      : KubeObjectLock(std::move(cluster), std::move(options), api::LeaseKind(), "v1") {}

 protected:
  json NewObject(const LeaderElectionRecord& record) const override {
    api::Lease lease;
    lease.metadata.name = options().name;
    lease.metadata.namespace_ = options().namespace_;
    lease.spec = SpecOf(record);
    return api::ToJson(lease);
  }

  void PutRecord(json& object, const LeaderElectionRecord& r) const override {
    object["spec"] = api::ToJson(SpecOf(r));
  }

  // Read straight from the JSON, not through api::LeaseFromJson: this runs on every renewal's
  // reply and every watched change, where a decode would canonicalize the whole object once
  // more, and it stays tolerant of what another client wrote (an unreadable time is the epoch).
  Result<ObservedRecord> ReadRecord(const json& object) const override {
    auto version = VersionOf(object);
    if (!version.ok()) return version.status();
    ObservedRecord out;
    out.version = *version;
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
