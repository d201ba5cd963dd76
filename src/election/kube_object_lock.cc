// KubeObjectLock: what LeaseLock and ConfigMapLock share: get, create, update, watch, events.
#include "election/kube_object_lock.h"

#include <map>
#include <string>

#include "api/api_paths.h"
#include "api/codec.h"
#include "api/json_text.h"
#include "api/object_members.h"
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

KubeObjectLock::~KubeObjectLock() = default;

Status KubeObjectLock::NotAVersion(std::string_view shown) const {
  return Status::Internal(std::string(kind_.kind) + " " + Describe() +
                          ": the server sent metadata.resourceVersion " + std::string(shown) +
                          ", which is not a decimal integer of at most 9223372036854775807 (a "
                          "lock's version orders its writes and is its leader's fencing token)");
}

Result<KubeObjectLock::KeptText> KubeObjectLock::Keep(std::string_view object) const {
  KeptText kept;
  kept.text = api::TextWithoutManagedFields(object);
  auto members = api::ReadObjectMembers(kept.text);
  if (!members) {
    return Status::Internal(std::string(kind_.kind) + " " + Describe() +
                            ": the server sent a reply that is not a JSON object");
  }
  kept.members = std::move(*members);
  // metadata.resourceVersion (none: 0), and whether every label of the options is there (each a
  // string of the same value), from the metadata's text.
  kept.has_labels = options_.labels.empty();
  const api::ObjectMember* meta = api::FindMember(kept.members, "metadata");
  if (meta == nullptr) return kept;
  const std::string_view meta_text(kept.text.data() + meta->begin, meta->end - meta->begin);
  auto fields = api::ReadObjectMembers(meta_text);
  if (!fields) return kept;
  const auto value_of = [](std::string_view text, const api::ObjectMember& member) {
    return text.substr(member.begin, member.end - member.begin);
  };
  if (const api::ObjectMember* rv = api::FindMember(*fields, "resourceVersion")) {
    const std::string_view rv_text = value_of(meta_text, *rv);
    std::optional<uint64_t> version;
    if (auto decoded = api::DecodeString(rv_text)) version = api::ParseResourceVersion(*decoded);
    if (!version || *version > uint64_t{INT64_MAX}) {
      return NotAVersion(rv_text);
    }
    kept.version = static_cast<int64_t>(*version);
  }
  const api::ObjectMember* labels_member = api::FindMember(*fields, "labels");
  if (kept.has_labels || labels_member == nullptr) return kept;
  const std::string_view labels_text = value_of(meta_text, *labels_member);
  auto labels = api::ReadObjectMembers(labels_text);
  if (!labels) return kept;
  kept.has_labels = true;
  for (const auto& [key, value] : options_.labels) {
    const api::ObjectMember* label = api::FindMember(*labels, key);
    if (label == nullptr || api::DecodeString(value_of(labels_text, *label)) != value) {
      kept.has_labels = false;
      break;
    }
  }
  return kept;
}

json KubeObjectLock::ParseOrNull(std::string_view text) {
  // Text checked when it was kept, or written here: should the parser still refuse it, it reads
  // as absent rather than throwing on a watch or an elector's thread.
  json value = api::ParseJson(text);
  if (value.is_discarded()) return json();
  return value;
}

json KubeObjectLock::MemberOf(const KeptText& kept, std::string_view key) {
  const api::ObjectMember* member = api::FindMember(kept.members, key);
  if (member == nullptr) return nullptr;
  // Checked when kept.
  return ParseOrNull(
      std::string_view(kept.text).substr(member->begin, member->end - member->begin));
}

ObservedRecord KubeObjectLock::RecordOf(const KeptText& kept) const {
  ObservedRecord out;
  out.version = kept.version;
  ReadRecord(MemberOf(kept, RecordMember()), out);
  return out;
}

Result<ObservedRecord> KubeObjectLock::Remember(Result<std::string> reply, bool own_write) {
  if (!reply.ok()) return reply.status();
  auto kept = Keep(*reply);
  if (!kept.ok()) return kept.status();
  ObservedRecord record = RecordOf(*kept);
  auto shared = std::make_shared<const KeptText>(std::move(*kept));
  std::lock_guard lock(mu_);
  cached_ = std::move(shared);
  auto version = static_cast<uint64_t>(record.version);
  if (own_write && version > known_version_->load()) known_version_->store(version);
  return record;
}

Result<ObservedRecord> KubeObjectLock::Get(Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  return Remember(KubeClientOf(*cluster_).CallForText("GET", object_path_, nullptr, timeout),
                  /*own_write=*/false);
}

Result<ObservedRecord> KubeObjectLock::Create(const LeaderElectionRecord& record, Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  json object = NewObject(record);
  if (object.is_object()) AddLabels(object["metadata"]);
  const std::string body = api::DumpJson(object);
  return Remember(KubeClientOf(*cluster_).CallForText("POST", collection_path_, &body, timeout),
                  /*own_write=*/true);
}

Result<ObservedRecord> KubeObjectLock::Update(const LeaderElectionRecord& record, Timeout timeout) {
  if (!invalid_.ok()) return invalid_;
  std::shared_ptr<const KeptText> object;
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
  std::shared_ptr<const KeptText> object;
  {
    std::lock_guard lock(mu_);
    if (cached_ && cached_->version == version) {
      object = cached_;
    } else if (watched_ && watched_->version == version) {
      object = watched_;
    } else {
      return Status::Conflict(Describe() + ": version " + std::to_string(version) +
                              " is not at hand");
    }
  }
  return Put(*object, record, timeout);
}

Result<ObservedRecord> KubeObjectLock::Put(const KeptText& base, const LeaderElectionRecord& record,
                                           Timeout timeout) {
  // Only the record's member changes (and the metadata, for labels it lacks); everything else,
  // metadata.resourceVersion included, goes as it was read: a compare-and-swap.
  const std::string_view member_name = RecordMember();
  std::string member;
  if (const api::ObjectMember* kept = api::FindMember(base.members, member_name)) {
    member = base.text.substr(kept->begin, kept->end - kept->begin);
  }
  if (auto text = PutRecordText(member, record)) {
    member = std::move(*text);
  } else {
    json value = MemberOf(base, member_name);
    PutRecord(value, record);
    member = api::DumpJson(value);
  }
  // A body names its kind, whatever the object read did (kube-apiserver refuses one without).
  const std::string api_version = json(kind_.api_version(version_)).dump();
  const std::string kind = json(kind_.kind).dump();
  std::vector<std::pair<std::string_view, std::string_view>> replace = {
      {"apiVersion", api_version}, {"kind", kind}, {member_name, member}};
  std::string metadata;
  if (!base.has_labels) {
    json labelled = member_name == "metadata" ? ParseOrNull(member) : MemberOf(base, "metadata");
    AddLabels(labelled);
    if (member_name == "metadata") {
      member = api::DumpJson(labelled);
      replace[2].second = member;
    } else {
      metadata = api::DumpJson(labelled);
      replace.emplace_back("metadata", metadata);
    }
  }
  const std::string body = api::ReplaceMembers(base.text, base.members, replace);
  return Remember(KubeClientOf(*cluster_).CallForText("PUT", object_path_, &body, timeout),
                  /*own_write=*/true);
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
  auto subscription = KubeClientOf(*cluster_).WatchObjectText(
      watch_path_, options_.name,
      [this, on_change = std::move(on_change)](const std::string& type, std::string_view object) {
        // Not an object with an ordered version: nothing a candidate can use.
        auto kept = Keep(object);
        if (!kept.ok()) return;
        if (type == "DELETED") {
          // Through a label selector, DELETED also says that the object lost the labels (it
          // left the selection): not that it is free. Such a lock learns of a deletion at its
          // next read instead (a follower's, once the lease it saw expires).
          if (!options_.labels.empty()) return;
          ObservedRecord gone;  // no holder: free; at the deletion's version, so a leader sees
          // that it came after its own last write
          gone.version = kept->version;
          on_change(gone);
          return;
        }
        ObservedRecord record = RecordOf(*kept);
        // Kept for a takeover (UpdateAt); not the echo of a renewal of ours, which is most of
        // what a leader's watch brings, and which its own write already gave it.
        if (record.record.holder_identity != options_.identity) {
          auto shared = std::make_shared<const KeptText>(std::move(*kept));
          std::lock_guard lock(mu_);
          if (!watched_ || watched_->version < record.version) watched_ = std::move(shared);
        }
        on_change(record);
      },
      known_version_);
  return std::make_unique<SubscriptionWatch>(shared_from_this(), cluster_, std::move(subscription));
}

void KubeObjectLock::RecordEvent(std::string_view reason, std::string_view message) {
  if (!options_.publish_events) return;
  std::string uid;
  {
    std::lock_guard lock(mu_);
    if (cached_) uid = api::LenientMetadata({{"metadata", MemberOf(*cached_, "metadata")}}).uid;
  }
  events_.Record({kind_.api_version(version_), std::string(kind_.kind), options_.namespace_,
                  options_.name, uid},
                 "Normal", reason, message);
}

}  // namespace tenure
