// KubeObjectLock: what LeaseLock and ConfigMapLock share: get, create, update, watch, events.
#include "election/kube_object_lock.h"

#include "api/api_paths.h"
#include "api/codec.h"
#include "api/object_meta_validation.h"
#include "api/resource_version.h"
#include "election/cluster_access.h"

namespace tenure {

using nlohmann::json;

KubeObjectLock::KubeObjectLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options,
                               const api::KindInfo& kind, std::string version)
    : cluster_(std::move(cluster)),
      options_(std::move(options)),
      kind_(kind),
      version_(std::move(version)),
      events_(ClusterAccess::SharedClient(*cluster_), "tenure", options_.identity,
              options_.on_event_error) {
  if (options_.namespace_.empty()) options_.namespace_ = cluster_->default_namespace();
  collection_path_ = api::CollectionPath(kind_, version_, options_.namespace_);
  object_path_ = api::ObjectPath(kind_, version_, options_.namespace_, options_.name);
  watch_path_ = collection_path_;
  // Labels the server would refuse (422 on every write) fail every call at once, with the
  // server's message, and nothing is sent.
  api::FieldErrors label_errors;
  api::internal::ValidateLabels(json{{"labels", options_.labels}}, label_errors);
  invalid_ = api::InvalidStatus(kind_.qualified_kind(), options_.name, label_errors);
  if (!options_.labels.empty()) {
    std::string selector;
    for (const auto& [key, value] : options_.labels) {
      if (!selector.empty()) selector += ',';
      selector += key + "=" + value;
    }
    watch_path_ = api::WithQuery(watch_path_, {{"labelSelector", selector}});
  }
}

void KubeObjectLock::AddLabels(json& object) const {
  if (options_.labels.empty() || !object.is_object()) return;
  json& metadata = object["metadata"];
  if (!metadata.is_object()) return;  // not an object the server would take: it says why
  json& labels = metadata["labels"];
  if (!labels.is_object()) labels = json::object();
  for (const auto& [key, value] : options_.labels) labels[key] = value;
}

KubeObjectLock::~KubeObjectLock() = default;

Result<int64_t> KubeObjectLock::VersionOf(const json& object) const {
  if (!object.is_object()) {
    return Status::Internal(std::string(kind_.kind) + " " + Describe() +
                            ": the server sent a reply that is not a JSON object");
  }
  const json* rv = nullptr;
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    if (auto it = meta->find("resourceVersion"); it != meta->end()) rv = &*it;
  }
  if (rv == nullptr) return int64_t{0};
  std::optional<uint64_t> version;
  if (rv->is_string()) version = api::ParseResourceVersion(rv->get_ref<const std::string&>());
  if (!version || *version > uint64_t{INT64_MAX}) {
    return Status::Internal(std::string(kind_.kind) + " " + Describe() +
                            ": the server sent metadata.resourceVersion " + rv->dump() +
                            ", which is not a decimal integer of at most 9223372036854775807 (a "
                            "lock's version orders its writes and is its leader's fencing token)");
  }
  return static_cast<int64_t>(*version);
}

namespace {

// Objects are kept without their managedFields: an update that omits them keeps the stored ones
// (kube's field manager starts from the live object's), so every renewal neither copies nor sends
// them, and the server does not decode them again.
json WithoutManagedFields(json object) {
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  return object;
}

}  // namespace

Result<ObservedRecord> KubeObjectLock::Remember(json object, bool own_write) {
  auto record = ReadRecord(object);
  if (!record.ok()) return record;
  json kept = WithoutManagedFields(std::move(object));
  std::lock_guard lock(mu_);
  cached_ = std::move(kept);
  cached_version_ = record->version;
  auto version = static_cast<uint64_t>(record->version);
  if (own_write && version > known_version_->load()) known_version_->store(version);
  return record;
}

Result<ObservedRecord> KubeObjectLock::Get(Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  auto object = KubeClientOf(*cluster_).Call("GET", object_path_, nullptr, timeout);
  if (!object.ok()) return object.status();
  return Remember(std::move(*object), /*own_write=*/false);
}

Result<ObservedRecord> KubeObjectLock::Create(const LeaderElectionRecord& record, Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  json object = NewObject(record);
  AddLabels(object);
  auto created = KubeClientOf(*cluster_).Call("POST", collection_path_, &object, timeout);
  if (!created.ok()) return created.status();
  return Remember(std::move(*created), /*own_write=*/true);
}

Result<ObservedRecord> KubeObjectLock::Update(const LeaderElectionRecord& record, Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  json object;
  {
    std::lock_guard lock(mu_);
    if (!cached_) return Status::NotFound(Describe() + ": not read yet");
    object = *cached_;
  }
  return Put(std::move(object), record, timeout);
}

Result<ObservedRecord> KubeObjectLock::UpdateAt(const LeaderElectionRecord& record, int64_t version,
                                                Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  json object;
  {
    std::lock_guard lock(mu_);
    if (cached_ && cached_version_ == version) {
      object = *cached_;
    } else if (watched_ && watched_->version == version) {
      object = watched_->object;
    } else {
      return Status::Conflict(Describe() + ": version " + std::to_string(version) +
                              " is not at hand");
    }
  }
  return Put(std::move(object), record, timeout);
}

Result<ObservedRecord> KubeObjectLock::Put(json base, const LeaderElectionRecord& record,
                                           Timeout timeout) {
  PutRecord(base, record);  // keeps metadata.resourceVersion: a compare-and-swap
  AddLabels(base);
  auto updated = KubeClientOf(*cluster_).Call("PUT", object_path_, &base, timeout);
  if (!updated.ok()) return updated.status();
  return Remember(std::move(*updated), /*own_write=*/true);
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
  if (!invalid_.ok()) return nullptr;  // its selector would be refused too; calls say why
  auto subscription = KubeClientOf(*cluster_).WatchObject(
      watch_path_, options_.name,
      [this, on_change = std::move(on_change)](const std::string& type, const json& object) {
        if (type == "DELETED") {
          // Through a label selector, DELETED also says that the object lost the labels (it
          // left the selection): not that it is free. Such a lock learns of a deletion at its
          // next read instead (a follower's, once the lease it saw expires).
          if (!options_.labels.empty()) return;
          ObservedRecord gone;  // no holder: free; at the deletion's version, so a leader sees
          // that it came after its own last write
          auto version = VersionOf(object);
          if (!version.ok()) return;  // not an ordered version: nothing a candidate can use
          gone.version = *version;
          on_change(gone);
          return;
        }
        auto record = ReadRecord(object);
        if (!record.ok()) return;
        // Kept for a takeover (UpdateAt); not the echo of a renewal of ours, which is most of
        // what a leader's watch brings, and which its own write already gave it.
        if (record->record.holder_identity != options_.identity) {
          std::lock_guard lock(mu_);
          if (!watched_ || watched_->version < record->version) {
            watched_ = Kept{WithoutManagedFields(object), record->version};
          }
        }
        on_change(*record);
      },
      known_version_);
  return std::make_unique<SubscriptionWatch>(shared_from_this(), cluster_, std::move(subscription));
}

void KubeObjectLock::RecordEvent(std::string_view reason, std::string_view message) {
  if (!options_.publish_events) return;
  std::string uid;
  {
    std::lock_guard lock(mu_);
    if (cached_) uid = api::LenientMetadata(*cached_).uid;
  }
  events_.Record({kind_.api_version(version_), std::string(kind_.kind), options_.namespace_,
                  options_.name, uid},
                 "Normal", reason, message);
}

}  // namespace tenure
