// LeaseLock: the record is a coordination.k8s.io/v1 Lease's spec.
#include <optional>
#include <string>
#include <string_view>

#include "api/codec.h"
#include "api/json_text.h"
#include "api/object_members.h"
#include "api/time.h"
#include "election/kube_object_lock.h"

namespace tenure {

using nlohmann::json;

namespace {

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

// A Lease of nothing but `spec`: what the record is read from and written to, without the cost
// of the metadata (a renewal's reply carries its managedFields).
json SpecAlone(json spec) {
  json alone = json::object();
  if (!spec.is_null()) alone["spec"] = std::move(spec);
  return alone;
}

// The members of a LeaseSpec, every one of which SpecOf writes or leaves out.
bool IsRecordMember(std::string_view key) {
  return key == "holderIdentity" || key == "leaseDurationSeconds" || key == "acquireTime" ||
         key == "renewTime" || key == "leaseTransitions" || key == "strategy" ||
         key == "preferredHolder";
}

// `spec` as JSON text, member for member what api::ToJson writes for it (in key order).
std::string SpecText(const api::LeaseSpec& spec) {
  std::string out = "{";
  const auto add = [&](const char* key, const std::string& value) {
    if (out.size() > 1) out += ',';
    out += '"';
    out += key;
    out += "\":";
    out += value;
  };
  const auto quoted = [](const std::string& text) { return json(text).dump(); };
  if (spec.acquire_time) add("acquireTime", quoted(api::FormatMicroTime(*spec.acquire_time)));
  if (spec.holder_identity) add("holderIdentity", quoted(*spec.holder_identity));
  if (spec.lease_duration_seconds) {
    add("leaseDurationSeconds", std::to_string(*spec.lease_duration_seconds));
  }
  if (spec.lease_transitions) add("leaseTransitions", std::to_string(*spec.lease_transitions));
  if (spec.preferred_holder) add("preferredHolder", quoted(*spec.preferred_holder));
  if (spec.renew_time) add("renewTime", quoted(api::FormatMicroTime(*spec.renew_time)));
  if (spec.strategy) add("strategy", quoted(*spec.strategy));
  out += '}';
  return out;
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

  const char* RecordMember() const override { return "spec"; }

  // The server's spec with the record in it, through the typed codec on the spec alone: fields
  // the record does not hold (a newer server's) go back as they came.
  void PutRecord(json& spec, const LeaderElectionRecord& r) const override {
    json alone = SpecAlone(std::move(spec));
    api::Lease lease = api::LenientLease(alone);
    lease.original = api::WireOriginal(std::make_shared<const json>(std::move(alone)));
    lease.spec = SpecOf(r);
    json encoded = api::ToJson(lease);
    spec = std::move(encoded["spec"]);
  }

  // Without a tree when the spec read holds nothing but the members SpecOf writes (nothing of a
  // newer server's to keep): the text of SpecOf(r), as api::ToJson writes it.
  std::optional<std::string> PutRecordText(std::string_view spec,
                                           const LeaderElectionRecord& r) const override {
    if (!spec.empty() && spec != "null") {
      auto members = api::ReadObjectMembers(spec);
      if (!members) return std::nullopt;
      for (const api::ObjectMember& member : *members) {
        if (!IsRecordMember(member.key)) return std::nullopt;
      }
    }
    return SpecText(SpecOf(r));
  }

  // Leniently: this runs on every renewal's reply and every watched change, and must read what
  // another client wrote (an unreadable time is the epoch, as client-go's zero time).
  void ReadRecord(json member, ObservedRecord& out) const override {
    const json alone = SpecAlone(std::move(member));
    const api::LeaseSpec spec = api::LenientLease(alone).spec;
    LeaderElectionRecord& r = out.record;
    r.holder_identity = spec.holder_identity.value_or("");
    r.lease_duration_seconds = spec.lease_duration_seconds.value_or(0);
    r.acquire_time = spec.acquire_time.value_or(api::Timestamp{});
    r.renew_time = spec.renew_time.value_or(api::Timestamp{});
    r.leader_transitions = spec.lease_transitions.value_or(0);
    r.strategy = spec.strategy.value_or("");
    r.preferred_holder = spec.preferred_holder.value_or("");
    out.raw =
        api::DumpJson(alone.value("spec", json::object()));  // the bytes as stored, not as read
  }
};

}  // namespace

std::shared_ptr<Lock> NewLeaseLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options) {
  return std::make_shared<LeaseLock>(std::move(cluster), std::move(options));
}

}  // namespace tenure
