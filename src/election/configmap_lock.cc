// ConfigMapLock: the record as JSON in the annotation control-plane.alpha.kubernetes.io/leader.
#include <cstdio>
#include <ctime>

#include "api/time.h"
#include "election/kube_object_lock.h"

namespace tenure {

using nlohmann::json;

namespace {

constexpr const char* kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";

// RFC 3339, or the Python client's naive "2026-11-29 23:05:24.543753" (taken as UTC).
std::chrono::system_clock::time_point TolerantTime(const json& record, const char* field) {
  auto it = record.find(field);
  if (it == record.end() || !it->is_string()) return {};
  std::string text = it->get<std::string>();
  if (auto t = api::ParseTime(text)) return *t;
  std::tm tm{};
  double seconds = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &seconds) == 6) {
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_sec = static_cast<int>(seconds);
    auto base = std::chrono::system_clock::from_time_t(timegm(&tm));
    return base + std::chrono::microseconds(
                      static_cast<int64_t>((seconds - static_cast<double>(tm.tm_sec)) * 1e6));
  }
  return {};
}

int TolerantInt(const json& record, const char* field) {
  auto it = record.find(field);
  if (it == record.end()) return 0;
  if (it->is_number_integer()) return it->get<int>();
  if (it->is_string()) {
    try {
      return std::stoi(it->get<std::string>());
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

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
    json record = {{"holderIdentity", r.holder_identity},
                   {"leaseDurationSeconds", r.lease_duration_seconds},
                   {"acquireTime", api::FormatTime(r.acquire_time)},
                   {"renewTime", api::FormatTime(r.renew_time)},
                   {"leaderTransitions", r.leader_transitions}};
    object["metadata"]["annotations"][kLeaderAnnotation] = record.dump();
  }

  Result<ObservedRecord> ReadRecord(const json& object) const override {
    ObservedRecord out;
    out.version = std::stoll(object.value("/metadata/resourceVersion"_json_pointer, std::string("0")));
    std::string text;
    if (auto a = object.find("metadata"); a != object.end()) {
      if (auto ann = a->find("annotations"); ann != a->end() && ann->is_object()) {
        text = ann->value(kLeaderAnnotation, "");
      }
    }
    out.raw = text;
    if (text.empty()) return out;  // a ConfigMap without a record: nobody holds it
    json record = json::parse(text, nullptr, false);
    if (!record.is_object()) return out;  // unreadable: treated as free, as client-go does
    LeaderElectionRecord& r = out.record;
    r.holder_identity = record.value("holderIdentity", "");
    r.lease_duration_seconds = TolerantInt(record, "leaseDurationSeconds");
    r.acquire_time = TolerantTime(record, "acquireTime");
    r.renew_time = TolerantTime(record, "renewTime");
    r.leader_transitions = TolerantInt(record, "leaderTransitions");
    return out;
  }
};

}  // namespace

std::shared_ptr<Lock> NewConfigMapLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options) {
  return std::make_shared<ConfigMapLock>(std::move(cluster), std::move(options));
}

}  // namespace tenure
