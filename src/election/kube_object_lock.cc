// KubeObjectLock: what LeaseLock and ConfigMapLock share: get, create, update, watch, events.
#include "election/kube_object_lock.h"

#include <map>
#include <string>

#include "api/api_paths.h"
#include "api/codec.h"
#include "api/object_meta_validation.h"
#include "api/parse_without_managed_fields.h"
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

void KubeObjectLock::AddLabels(json& metadata) const {
  if (options_.labels.empty()) return;
  if (!metadata.is_object()) return;  // not an object the server would take: it says why
  json& labels = metadata["labels"];
  if (!labels.is_object()) labels = json::object();
  for (const auto& [key, value] : options_.labels) labels[key] = value;
}

bool KubeObjectLock::HasLabels(const json& object) const {
  if (options_.labels.empty()) return true;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return false;
  auto labels = metadata->find("labels");
  if (labels == metadata->end() || !labels->is_object()) return false;
  for (const auto& [key, value] : options_.labels) {
    auto label = labels->find(key);
    if (label == labels->end() || !label->is_string() ||
        label->get_ref<const std::string&>() != value) {
      return false;
    }
  }
  return true;
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
  auto kept = std::make_shared<const json>(WithoutManagedFields(std::move(object)));
  std::lock_guard lock(mu_);
  cached_ = std::move(kept);
  cached_version_ = record->version;
  auto version = static_cast<uint64_t>(record->version);
  if (own_write && version > known_version_->load()) known_version_->store(version);
  return record;
}

Result<ObservedRecord> KubeObjectLock::Get(Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  auto object = KubeClientOf(*cluster_).Call("GET", object_path_, nullptr, timeout,
                                             "application/json", api::ParseWithoutManagedFields);
  if (!object.ok()) return object.status();
  return Remember(std::move(*object), /*own_write=*/false);
}

Result<ObservedRecord> KubeObjectLock::Create(const LeaderElectionRecord& record, Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  json object = NewObject(record);
  if (object.is_object()) AddLabels(object["metadata"]);
  auto created = KubeClientOf(*cluster_).Call("POST", collection_path_, &object, timeout,
                                              "application/json", api::ParseWithoutManagedFields);
  if (!created.ok()) return created.status();
  return Remember(std::move(*created), /*own_write=*/true);
}

Result<ObservedRecord> KubeObjectLock::Update(const LeaderElectionRecord& record, Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  std::shared_ptr<const json> object;
  {
    std::lock_guard lock(mu_);
    if (!cached_) return Status::NotFound(Describe() + ": not read yet");
    object = cached_;
  }
  return Put(*object, record, timeout);
}

Result<ObservedRecord> KubeObjectLock::UpdateAt(const LeaderElectionRecord& record, int64_t version,
                                                Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  std::shared_ptr<const json> object;
  {
    std::lock_guard lock(mu_);
    if (cached_ && cached_version_ == version) {
      object = cached_;
    } else if (watched_ && watched_->version == version) {
      object = watched_->object;
    } else {
      return Status::Conflict(Describe() + ": version " + std::to_string(version) +
                              " is not at hand");
    }
  }
  return Put(*object, record, timeout);
}

namespace {

// The text of the object `base` with the members `changed` in place of its own (or added): a
// write of a few members of a kept object without copying the rest of it. The same text as
// base's dump() after the change (members in key order, as nlohmann keeps them).
std::string DumpWith(const json& base, const std::map<std::string, json, std::less<>>& changed) {
  std::string out = "{";
  const auto add = [&](const std::string& key, const json& value) {
    if (out.size() > 1) out += ',';
    out += json(key).dump();
    out += ':';
    out += value.dump();
  };
  auto next_change = changed.begin();
  for (auto member = base.begin(); member != base.end(); ++member) {
    const std::string& key = member.key();
    for (; next_change != changed.end() && next_change->first < key; ++next_change) {
      add(next_change->first, next_change->second);
    }
    if (next_change != changed.end() && next_change->first == key) {
      add(key, next_change->second);
      ++next_change;
    } else {
      add(key, member.value());
    }
  }
  for (; next_change != changed.end(); ++next_change) add(next_change->first, next_change->second);
  out += '}';
  return out;
}

}  // namespace

Result<ObservedRecord> KubeObjectLock::Put(const json& base, const LeaderElectionRecord& record,
                                           Timeout timeout) {
  // Only the record's member changes (and the metadata, for labels it lacks); everything else,
  // metadata.resourceVersion included, goes as it was read: a compare-and-swap.
  std::map<std::string, json, std::less<>> changed;
  // A body names its kind, whatever the object read did (kube-apiserver refuses one without).
  changed["apiVersion"] = kind_.api_version(version_);
  changed["kind"] = kind_.kind;
  json& member = changed[RecordMember()];
  if (auto it = base.find(RecordMember()); it != base.end()) member = *it;
  PutRecord(member, record);
  if (!HasLabels(base)) {
    auto [metadata, added] = changed.try_emplace("metadata");
    if (added) {
      if (auto it = base.find("metadata"); it != base.end()) metadata->second = *it;
    }
    AddLabels(metadata->second);
  }
  auto updated =
      KubeClientOf(*cluster_).CallWithText("PUT", object_path_, DumpWith(base, changed), timeout,
                                           "application/json", api::ParseWithoutManagedFields);
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
            watched_ =
                Kept{std::make_shared<const json>(WithoutManagedFields(object)), record->version};
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
