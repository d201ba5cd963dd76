// Reconciler: the controller's work loop: caches, Decide per lease, pings, writes, Events, GC.
#include "coordination/reconciler.h"

#include <thread>
#include <vector>

#include "api/api_paths.h"
#include "api/codec.h"
#include "api/kinds.h"
#include "api/time.h"

namespace tenure::coordination {

using nlohmann::json;

namespace {

constexpr auto kCallTimeout = std::chrono::seconds(10);
constexpr std::string_view kLeaseVersion = "v1";
const std::string kGarbageCollection = "";  // the queue key of the periodic GC

// The queue key of the lease a candidate runs for: "namespace/leaseName".
std::string LeaseKey(const api::LeaseCandidate& candidate) {
  return candidate.metadata.namespace_ + "/" + candidate.spec.lease_name;
}

}  // namespace

Reconciler::Reconciler(std::shared_ptr<client::KubeClient> client, ReconcilerOptions options,
                       ControllerMetrics& metrics, client::EventRecorder& events)
    : client_(std::move(client)),
      options_(std::move(options)),
      metrics_(metrics),
      events_(events),
      queue_(options_.clock) {}

Reconciler::~Reconciler() = default;

std::string Reconciler::CandidatePath(const std::string& ns, const std::string& name) const {
  return api::ObjectPath(api::LeaseCandidateKind(), options_.candidate_version, ns, name);
}

void Reconciler::Run(std::stop_token stop) {
  index_.Clear();
  {
    std::lock_guard lock(unread_mu_);
    unread_.clear();
  }
  {
    std::lock_guard lock(listed_mu_);
    candidates_listed_ = false;
  }
  candidates_ = std::make_unique<client::Informer>(
      *client_, api::CollectionPath(api::LeaseCandidateKind(), options_.candidate_version, ""),
      [this](const std::string& type, const json& object) { OnCandidate(type, object); });
  // The candidates first: the Lease listing then brings every lease they run for, and none has
  // to be read on its own.
  bool listed;
  {
    std::unique_lock lock(listed_mu_);
    listed = listed_cv_.wait(lock, stop, [&] { return candidates_listed_; });
  }
  if (!listed) {
    // Not under listed_mu_: Stop waits for a delivery in progress, and the listing's SYNCED
    // takes that lock (the term's work hung here once, and the controller's stop with it).
    candidates_->Stop();
    candidates_.reset();
    return;
  }
  // The Leases that candidates run for, kept as text (memory). Every renewal of every Lease of
  // the cluster comes through this watch; the others are turned away from their event's head,
  // unparsed (10,000 renewed Leases took 30 us of the server's CPU per renewal, and a copy each).
  // Candidates are few and read at each reconcile of their lease: kept parsed.
  leases_ = std::make_unique<client::Informer>(
      *client_, api::CollectionPath(api::LeaseKind(), kLeaseVersion, ""),
      [this](const std::string& type, const json& object) { OnLease(type, object); },
      client::Informer::Keep::kText,
      [this](const std::string& ns, const std::string& name) {
        return index_.HasCandidates(ns, name);
      });
  ready_ = true;
  OnSynced();  // in case both listings completed before ready_
  while (auto key = queue_.Get(stop)) {
    if (*key == kGarbageCollection) {
      CollectGarbage();
      queue_.AddAfter(kGarbageCollection, options_.gc_interval);
    } else {
      Reconcile(*key);
    }
    queue_.Done(*key);
  }
  ready_ = false;
  candidates_->Stop();
  leases_->Stop();
  candidates_.reset();
  leases_.reset();
}

std::vector<std::string> Reconciler::Track(const std::string& type, const json& object) {
  std::vector<std::string> leases;
  if (type != "DELETED") {
    if (auto candidate = api::LeaseCandidateFromJson(object); candidate.ok()) {
      const std::string& ns = candidate->metadata.namespace_;
      // Marked before the index lists it: whoever sees the candidate sees the mark too.
      if (!index_.HasCandidates(ns, candidate->spec.lease_name)) MarkUnread(LeaseKey(*candidate));
      if (auto left = index_.Put(*candidate)) leases.push_back(ns + "/" + *left);
      // A change made by our own ping needs no reconcile: its ack brings one.
      if (type != "MODIFIED" || !api::PingPending(candidate->spec)) {
        leases.push_back(LeaseKey(*candidate));
      }
      return leases;
    }
  }
  api::ObjectMeta meta = api::LenientMetadata(object);  // gone, or skipped as Reconcile would
  if (auto left = index_.Remove(meta.namespace_, meta.name)) {
    leases.push_back(meta.namespace_ + "/" + *left);
  }
  return leases;
}

void Reconciler::OnCandidate(const std::string& type, const json& object) {
  std::vector<std::string> leases;
  if (type != "SYNCED") leases = Track(type, object);  // also before Run is ready
  if (type == "SYNCED") {
    std::lock_guard lock(listed_mu_);
    candidates_listed_ = true;
    listed_cv_.notify_all();
  }
  if (!ready_) return;
  if (type == "SYNCED") return OnSynced();
  metrics_.candidates = static_cast<int64_t>(candidates_->size());
  if (!candidates_->synced() || !leases_->synced()) return;  // OnSynced queues all
  for (const std::string& lease : leases) queue_.Add(lease);
}

void Reconciler::OnLease(const std::string& type, const json& object) {
  if (type == "SYNCED") {
    if (ready_) OnSynced();
    return;
  }
  api::ObjectMeta meta = api::LenientMetadata(object);
  std::string key = meta.namespace_ + "/" + meta.name;
  // Taken in since the lease got its candidate (what the filter turned away before is older):
  // the copy is current, no read needed.
  TakeUnread(key);
  if (!ready_) return;
  if (!candidates_->synced() || !leases_->synced()) return;
  metrics_.leases = static_cast<int64_t>(leases_->size());
  // Only leases with candidates are managed.
  if (index_.HasCandidates(meta.namespace_, meta.name)) queue_.Add(std::move(key));
}

// After each complete listing of both collections every managed lease is looked at: a relist
// may have hidden changes.
void Reconciler::OnSynced() {
  if (!ready_ || !candidates_->synced() || !leases_->synced()) return;
  metrics_.candidates = static_cast<int64_t>(candidates_->size());
  metrics_.leases = static_cast<int64_t>(leases_->size());
  for (const json& c : candidates_->List()) {
    if (auto candidate = api::LeaseCandidateFromJson(c); candidate.ok()) {
      queue_.Add(LeaseKey(*candidate));
    }
  }
  queue_.Add(kGarbageCollection);
}

void Reconciler::Reconcile(const std::string& key) {
  size_t slash = key.find('/');
  std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  std::vector<api::LeaseCandidate> candidates;
  for (const std::string& candidate : index_.CandidatesOf(ns, name)) {
    auto object = candidates_->Get(ns, candidate);
    if (!object) continue;  // gone meanwhile: its event requeues the lease
    auto typed = api::LeaseCandidateFromJson(*object);
    if (typed.ok() && typed->spec.lease_name == name) candidates.push_back(std::move(*typed));
  }
  if (!candidates.empty() && TakeUnread(key)) {
    if (Status read = ReadLease(ns, name); !read.ok()) {
      ++metrics_.errors;
      MarkUnread(key);
      Retry(key);
      return;
    }
  }
  // The requeue is due a delay after the moment decided on, not after the writes and pings.
  Clock::TimePoint decided_at = options_.clock->now();
  api::Timestamp now = options_.clock->wall_now();
  std::optional<SeenLease> lease;
  if (auto object = leases_->Get(ns, name)) {
    auto typed = api::LeaseFromJson(*object);
    if (typed.ok()) {
      KeyState& seen = state_[key];
      if (typed->metadata.resource_version != seen.lease_version) {
        seen.lease_version = typed->metadata.resource_version;
        seen.lease_seen_at = now;  // a change reaches us after it was made: later is safe
      }
      lease = SeenLease{std::move(*typed), seen.lease_seen_at};
    }
  }
  Decision decision = Decide(lease, candidates, now, options_.timings);
  if (decision.kind == Decision::Kind::kNoCandidates) {
    state_.erase(key);
    // No candidate at all (not only none that counts, such as expired ones): the lease's events
    // are turned away from now on, and its copy would grow stale. Should a candidate come
    // meanwhile, the mark has the lease read before any decision.
    if (!index_.HasCandidates(ns, name)) {
      leases_->Forget(ns, name);
      MarkUnread(key);
      metrics_.leases = static_cast<int64_t>(leases_->size());
    }
    ++metrics_.reconciles;
    return;
  }
  if (!decision.pings.empty()) SendPings(ns, name, decision.pings);
  Status written = decision.write ? WriteLease(ns, name, *decision.write) : Status::Ok();
  if (!written.ok()) {
    if (!written.IsConflict() && !written.IsAlreadyExists()) {
      ++metrics_.errors;
      std::string error = written.ToString();
      if (options_.log && state_[key].last_error != error) {
        options_.log("lease " + key + ": writing the lease failed: " + error);
      }
      state_[key].last_error = std::move(error);
    }
    // The copy and the server disagree on whether the lease exists (a change turned away
    // while the lease had no candidate, or a read that crossed a create): read it again.
    if (written.IsAlreadyExists() || written.IsNotFound()) MarkUnread(key);
    Retry(key);  // a conflict: the watch brings the newer lease meanwhile
  } else {
    Notify(ns, name, decision, decision.write.has_value());
    state_[key].failures = 0;
    state_[key].last_error.clear();
    if (decision.requeue_after) queue_.AddAt(key, decided_at + *decision.requeue_after);
  }
  ++metrics_.reconciles;  // counted once complete: a reader that sees it sees the requeue
}

void Reconciler::SendPings(const std::string& ns, const std::string& lease,
                           const std::vector<std::string>& names) {
  api::Timestamp now = api::TruncateToMicros(options_.clock->wall_now());
  std::vector<std::jthread> pings;
  for (const std::string& name : names) {
    auto cached = candidates_->Get(ns, name);
    if (!cached) continue;
    auto candidate = api::LeaseCandidateFromJson(*cached);
    if (!candidate.ok()) continue;  // Decide never names one it could not read
    candidate->spec.ping_time = now;
    json object = api::ToJson(*candidate, options_.candidate_version);
    pings.emplace_back([this, ns, name, object = std::move(object)] {
      auto reply = client_->Call("PUT", CandidatePath(ns, name), &object, kCallTimeout);
      if (reply.ok()) {
        ++metrics_.pings;
        candidates_->Remember(*reply);
      } else if (!reply.status().IsConflict() && !reply.status().IsNotFound()) {
        ++metrics_.errors;  // a conflict means the candidate just renewed: no ping needed
      }
    });
  }
  if (options_.log) {
    std::string line = "lease " + ns + "/" + lease + ": pinging";
    for (const std::string& name : names) line += " " + name;
    options_.log(line);
  }
}

Status Reconciler::WriteLease(const std::string& ns, const std::string& name,
                              const LeaseWrite& write) {
  json object;
  if (write.create) {
    api::Lease lease;
    lease.metadata.name = name;
    lease.metadata.namespace_ = ns;
    lease.spec = write.spec;
    object = api::ToJson(lease);
  } else {
    // The server's object with the new spec: its metadata (and any field a newer server adds)
    // is sent back as it came; metadata.resourceVersion makes the write a compare-and-swap.
    auto cached = leases_->Get(ns, name);
    if (!cached) return Status::Conflict("the lease vanished from the cache");
    auto lease = api::LeaseFromJson(*cached);
    if (!lease.ok()) return lease.status();
    lease->spec = write.spec;
    object = api::ToJson(*lease);
  }
  const api::KindInfo& kind = api::LeaseKind();
  auto reply = write.create ? client_->Call("POST", api::CollectionPath(kind, kLeaseVersion, ns),
                                            &object, kCallTimeout)
                            : client_->Call("PUT", api::ObjectPath(kind, kLeaseVersion, ns, name),
                                            &object, kCallTimeout);
  if (!reply.ok()) return reply.status();
  leases_->Remember(*reply);
  return Status::Ok();
}

// Events and log lines. Every renewal of a lease reconciles it again, so a decision repeated
// without another one in between (a conflict, or a winner that never renews and is re-assigned
// at each expiry) is reported again only after kRepeatAfter, like kube's event aggregation.
void Reconciler::Notify(const std::string& ns, const std::string& name, const Decision& decision,
                        bool written) {
  constexpr auto kRepeatAfter = std::chrono::minutes(10);
  std::string key = ns + "/" + name;
  KeyState& state = state_[key];
  if (written) {
    if (decision.elected) ++metrics_.elections;
    if (decision.preempting) ++metrics_.preemptions;
    if (decision.preferred_cleared) ++metrics_.preferred_holder_cleared;
  }
  const std::string& notice = decision.summary;
  if (notice.empty()) return;
  Clock::TimePoint now = options_.clock->now();
  if (notice == state.last_notice && now - state.last_notice_at < kRepeatAfter) return;
  state.last_notice = notice;
  state.last_notice_at = now;
  if (decision.kind == Decision::Kind::kStrategyConflict) ++metrics_.strategy_conflicts;
  if (options_.log) options_.log("lease " + key + ": " + notice);
  std::string uid;
  if (auto object = leases_->Get(ns, name)) {
    if (auto lease = api::LeaseFromJson(*object); lease.ok()) uid = std::move(lease->metadata.uid);
  }
  for (const DecisionEvent& e : decision.events) {
    events_.Record({"coordination.k8s.io/v1", "Lease", ns, name, uid}, e.type, e.reason, e.message);
  }
}

void Reconciler::MarkUnread(const std::string& key) {
  std::lock_guard lock(unread_mu_);
  unread_.insert(key);
}

bool Reconciler::TakeUnread(const std::string& key) {
  std::lock_guard lock(unread_mu_);
  return unread_.erase(key) > 0;
}

Status Reconciler::ReadLease(const std::string& ns, const std::string& name) {
  auto reply = client_->Call("GET", api::ObjectPath(api::LeaseKind(), kLeaseVersion, ns, name),
                             nullptr, kCallTimeout);
  if (reply.ok()) {
    leases_->Remember(*reply);  // an event taken in meanwhile may be newer: the newer stays
  } else if (reply.status().IsNotFound()) {
    leases_->Forget(ns, name);
  } else {
    return reply.status();
  }
  metrics_.leases = static_cast<int64_t>(leases_->size());
  return Status::Ok();
}

void Reconciler::Retry(const std::string& key) {
  int& failures = state_[key].failures;
  auto delay = std::chrono::milliseconds(50) * (1 << std::min(failures, 10));
  ++failures;
  queue_.AddAfter(key, std::min<Clock::Duration>(delay, options_.timings.requeue_interval));
}

// Deletes candidates that have not renewed for candidate_expiry, rechecked on a fresh read and
// deleted only at that resourceVersion, so a candidate renewing meanwhile survives.
void Reconciler::CollectGarbage() {
  api::Timestamp now = options_.clock->wall_now();
  auto expired = [&](const api::LeaseCandidate& c) {
    const auto& renew = c.spec.renew_time;
    return !renew || *renew + options_.timings.candidate_expiry < now;
  };
  for (const json& object : candidates_->List()) {
    auto cached = api::LeaseCandidateFromJson(object);
    if (!cached.ok() || !expired(*cached)) continue;
    const std::string& ns = cached->metadata.namespace_;
    const std::string& name = cached->metadata.name;
    std::string path = CandidatePath(ns, name);
    auto reply = client_->Call("GET", path, nullptr, kCallTimeout);
    if (!reply.ok()) continue;
    auto current = api::LeaseCandidateFromJson(*reply);
    if (!current.ok() || !expired(*current)) continue;
    json options = api::ToJson(api::DeleteOptions{
        .preconditions =
            api::Preconditions{.resource_version = current->metadata.resource_version}});
    auto deleted = client_->Call("DELETE", path, &options, kCallTimeout);
    if (deleted.ok()) {
      ++metrics_.candidates_collected;
      if (options_.log) options_.log("deleted expired LeaseCandidate " + ns + "/" + name);
    } else if (!deleted.status().IsNotFound() && !deleted.status().IsConflict()) {
      ++metrics_.errors;
    }
  }
}

}  // namespace tenure::coordination
