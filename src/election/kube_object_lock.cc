// KubeObjectLock: what LeaseLock and ConfigMapLock share: get, create, update, watch, events.
#include "election/kube_object_lock.h"

#include "client/resource_version.h"
#include "election/cluster_access.h"

namespace tenure {

using nlohmann::json;

KubeObjectLock::KubeObjectLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options)
    : cluster_(std::move(cluster)),
      options_(std::move(options)),
      events_(ClusterAccess::SharedClient(*cluster_), "tenure", options_.identity) {
  if (options_.namespace_.empty()) options_.namespace_ = cluster_->default_namespace();
}

KubeObjectLock::~KubeObjectLock() = default;

Result<ObservedRecord> KubeObjectLock::Remember(const json& object) {
  auto record = ReadRecord(object);
  std::lock_guard lock(mu_);
  cached_ = object;
  return record;
}

Result<ObservedRecord> KubeObjectLock::Get(Timeout timeout) {
  auto object = KubeClientOf(*cluster_).Call("GET", ObjectPath(), nullptr, timeout);
  if (!object.ok()) return object.status();
  return Remember(*object);
}

Result<ObservedRecord> KubeObjectLock::Create(const LeaderElectionRecord& record, Timeout timeout) {
  json object = NewObject(record);
  auto created = KubeClientOf(*cluster_).Call("POST", CollectionPath(), &object, timeout);
  if (!created.ok()) return created.status();
  return Remember(*created);
}

Result<ObservedRecord> KubeObjectLock::Update(const LeaderElectionRecord& record, Timeout timeout) {
  json object;
  {
    std::lock_guard lock(mu_);
    if (!cached_) return Status::NotFound(Describe() + ": not read yet");
    object = *cached_;
  }
  PutRecord(object, record);  // keeps metadata.resourceVersion: a compare-and-swap
  auto updated = KubeClientOf(*cluster_).Call("PUT", ObjectPath(), &object, timeout);
  if (!updated.ok()) return updated.status();
  return Remember(*updated);
}

namespace {
// The subscription's callback reads records through the lock, so the handle keeps the lock (and
// the Cluster) alive until the subscription has ended: a watch may outlive the caller's lock.
class SubscriptionWatch final : public LockWatch {
 public:
  SubscriptionWatch(std::shared_ptr<const KubeObjectLock> lock, std::shared_ptr<Cluster> cluster,
                    std::unique_ptr<client::Subscription> s)
      : lock_(std::move(lock)), cluster_(std::move(cluster)), subscription_(std::move(s)) {}
  ~SubscriptionWatch() override { subscription_.reset(); }
  bool active() const override { return subscription_->active(); }

 private:
  std::shared_ptr<const KubeObjectLock> lock_;
  std::shared_ptr<Cluster> cluster_;
  std::unique_ptr<client::Subscription> subscription_;
};
}  // namespace

std::unique_ptr<LockWatch> KubeObjectLock::Watch(
    std::function<void(const ObservedRecord&)> on_change) {
  auto subscription = KubeClientOf(*cluster_).WatchObject(
      CollectionPath(), options_.name,
      [this, on_change = std::move(on_change)](const std::string& type, const json& object) {
        if (type == "DELETED") {
          ObservedRecord gone;  // no holder: free; at the deletion's version, so a leader sees
          // that it came after its own last write
          gone.version = static_cast<int64_t>(client::ResourceVersionOf(object).value_or(0));
          on_change(gone);
          return;
        }
        auto record = ReadRecord(object);
        if (record.ok()) on_change(*record);
      });
  return std::make_unique<SubscriptionWatch>(shared_from_this(), cluster_, std::move(subscription));
}

void KubeObjectLock::RecordEvent(std::string_view reason, std::string_view message) {
  if (!options_.publish_events) return;
  std::string uid;
  {
    std::lock_guard lock(mu_);
    if (cached_) uid = cached_->value("/metadata/uid"_json_pointer, std::string());
  }
  events_.Record({ApiVersion(), Kind(), options_.namespace_, options_.name, uid}, "Normal", reason,
                 message);
}

}  // namespace tenure
