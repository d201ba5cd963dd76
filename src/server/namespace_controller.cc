// NamespaceController: deletes the content of terminating namespaces, then their finalizer and
// the namespaces themselves.
#include "server/namespace_controller.h"

#include <pthread.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/kinds.h"
#include "api/time.h"
#include "server/field_manager.h"
#include "server/namespace_strategy.h"
#include "server/object_meta.h"
#include "server/storage_key.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr std::string_view kFinalizer = "kubernetes";
// A namespace whose writes raced others is tried again after this pause.
constexpr std::chrono::milliseconds kRetryPause{100};

bool HasOurFinalizer(const json& ns) {
  auto spec = ns.find("spec");
  if (spec == ns.end() || !spec->is_object()) return false;
  auto finalizers = spec->find("finalizers");
  return finalizers != spec->end() && finalizers->is_array() &&
         std::find(finalizers->begin(), finalizers->end(), kFinalizer) != finalizers->end();
}

// A terminating namespace that waits for tenure: for its content to go, or, once no finalizer
// is left (the others removed through /finalize), for its own removal.
bool AwaitsUs(const json& ns) {
  return IsTerminating(ns) && (HasOurFinalizer(ns) || !HasFinalizers(ns));
}

// The conditions kube's namespace deleter keeps on a terminating namespace (its
// namespaceConditionUpdater): all fine, except NamespaceContentRemaining when `remaining` names
// what could not be removed yet ("configmaps. has 2 resource instances, ..."). A condition keeps
// its lastTransitionTime while its status stays.
json DeletionConditions(const json& old_status, const std::string& remaining, const Clock& clock) {
  struct Condition {
    const char* type;
    const char* reason;
    const char* message;
  };
  static constexpr Condition kOk[] = {
      {"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered",
       "All resources successfully discovered"},
      {"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions",
       "All legacy kube types successfully parsed"},
      {"NamespaceDeletionContentFailure", "ContentDeleted",
       "All content successfully deleted, may be waiting on finalization"},
      {"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
      {"NamespaceFinalizersRemaining", "ContentHasNoFinalizers",
       "All content-preserving finalizers finished"},
  };
  const json* old = nullptr;
  if (auto it = old_status.find("conditions"); it != old_status.end() && it->is_array()) {
    old = &*it;
  }
  json out = json::array();
  for (const Condition& ok : kOk) {
    json c = {
        {"type", ok.type}, {"status", "False"}, {"reason", ok.reason}, {"message", ok.message}};
    if (std::string_view(ok.type) == "NamespaceContentRemaining" && !remaining.empty()) {
      c["status"] = "True";
      c["reason"] = "SomeResourcesRemain";
      c["message"] = "Some resources are remaining: " + remaining;
    }
    c["lastTransitionTime"] = api::FormatTime(clock.wall_now());
    if (old != nullptr) {
      for (const json& before : *old) {
        if (before.is_object() && before.value("type", "") == ok.type &&
            before.value("status", "") == c["status"] && before.contains("lastTransitionTime")) {
          c["lastTransitionTime"] = before["lastTransitionTime"];
        }
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

// The manager the controller's writes are recorded under (kube's controllers: their
// User-Agent's first word).
constexpr std::string_view kManager = "tenure";

// `written` with managedFields recording the controller's write of it over `stored`, as kube's
// namespace controller writes through the API: the status through namespaces/status, the
// finalizers through namespaces/finalize.
json Recorded(const json& stored, const json& written, const Clock& clock) {
  json with_status = stored;
  with_status["status"] = written.value("status", json::object());
  FieldManager(api::NamespaceKind(), "v1", "status", {"spec"}, clock)
      .Update(stored, with_status, kManager);
  json finalized = with_status;
  finalized["spec"] = written.value("spec", json::object());
  FieldManager(api::NamespaceKind(), "v1", "finalize", {"status"}, clock)
      .Update(with_status, finalized, kManager);
  return finalized;
}

// Sets `ns`'s deletion conditions; whether that changed them.
bool SetDeletionConditions(json& ns, const std::string& remaining, const Clock& clock) {
  json& status = ns["status"];
  if (!status.is_object()) status = json::object();
  json conditions = DeletionConditions(status, remaining, clock);
  if (status.value("conditions", json()) == conditions) return false;
  status["conditions"] = std::move(conditions);
  return true;
}

}  // namespace

NamespaceController::NamespaceController(std::shared_ptr<store::Store> store,
                                         std::shared_ptr<Clock> clock)
    : store_(std::move(store)), clock_(std::move(clock)) {}

Result<std::unique_ptr<NamespaceController>> NamespaceController::Start(
    std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock) {
  std::unique_ptr<NamespaceController> controller(new NamespaceController(store, std::move(clock)));
  const std::string prefix = StoragePrefix(api::NamespaceKind(), "");
  auto listed = store->List(prefix);
  if (!listed.ok()) return listed.status();
  for (const store::KeyValue& kv : listed->items) controller->Consider(kv.value);
  NamespaceController* self = controller.get();
  auto watch =
      store->Watch(prefix, listed->revision, [self](const std::vector<store::Event>& events) {
        for (const store::Event& e : events) {
          if (e.type != store::Event::Type::kDeleted) self->Consider(e.kv.value);
        }
      });
  if (!watch.ok()) return watch.status();
  controller->watch_ = std::move(*watch);
  controller->worker_ = std::thread([self] { self->Run(); });
  return controller;
}

NamespaceController::~NamespaceController() {
  watch_.reset();  // no callback runs once this returns
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void NamespaceController::Consider(const std::string& stored) {
  if (stored.find("deletionTimestamp") == std::string::npos) return;  // the common case, unparsed
  json ns = json::parse(stored, nullptr, false);
  if (!AwaitsUs(ns)) return;
  const std::string name = MetadataString(ns, "name");
  if (name.empty()) return;
  {
    std::lock_guard lock(mu_);
    if (!queued_.insert(name).second) return;
    queue_.push_back(name);
  }
  wake_.notify_one();
}

void NamespaceController::Run() {
  pthread_setname_np(pthread_self(), "tenure-ns-ctl");
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const std::string name = std::move(queue_.front());
    queue_.pop_front();
    queued_.erase(name);
    lock.unlock();
    const bool done = Finish(name);
    lock.lock();
    if (!done) {
      // Behind whatever else is queued, and after a pause: a namespace that keeps failing
      // neither spins nor holds the others back.
      if (queued_.insert(name).second) queue_.push_back(name);
      wake_.wait_for(lock, kRetryPause, [&] { return stopping_.load(); });
    }
  }
}

bool NamespaceController::Finish(const std::string& name) {
  const std::string key = StorageKey(api::NamespaceKind(), "", name);
  auto stored = store_->Get(key);
  if (!stored.ok()) return stored.status().IsNotFound();
  json ns = json::parse(stored->value, nullptr, false);
  if (!AwaitsUs(ns)) return true;

  if (HasOurFinalizer(ns)) {
    // The content, every namespaced kind, deleted until a pass finds none (an object admitted
    // just before the namespace was marked may land after the first listing). A delete that
    // finds the object changed is looked at again on the next pass.
    for (int pass = 0;; ++pass) {
      size_t found = 0;
      std::string remaining;  // kube's "<resource>.<group> has N resource instances, ..."
      for (const api::KindInfo* kind : api::AllKinds()) {
        if (!kind->namespaced || !kind->stored) continue;
        auto contents = store_->List(StoragePrefix(*kind, name));
        if (!contents.ok()) return false;
        found += contents->items.size();
        if (!contents->items.empty()) {
          if (!remaining.empty()) remaining += ", ";
          remaining += std::string(kind->resource) + "." + std::string(kind->group) + " has " +
                       std::to_string(contents->items.size()) + " resource instances";
        }
        for (const store::KeyValue& kv : contents->items) {
          if (stopping_) return false;
          store_->WriteSync({store::WriteOp::Kind::kDelete, kv.key, "", kv.mod_revision});
        }
      }
      if (found == 0) break;
      if (pass == 2) {
        // Still filling up: say so on the namespace, and try again after a pause.
        const json before = ns;
        if (SetDeletionConditions(ns, remaining, *clock_)) {
          store_->WriteSync({store::WriteOp::Kind::kUpdate, key,
                             Recorded(before, ns, *clock_).dump(), stored->mod_revision});
        }
        return false;
      }
    }
    SetDeletionConditions(ns, "", *clock_);
    json& finalizers = ns["spec"]["finalizers"];
    finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), kFinalizer),
                     finalizers.end());
  }

  // Then the finalizer (compare-and-swap on the version read above: a write since then means
  // another pass), and the namespace once no finalizer is left.
  store::WriteOp op;
  if (HasFinalizers(ns)) {
    const json before = json::parse(stored->value, nullptr, false);
    op = {store::WriteOp::Kind::kUpdate, key, Recorded(before, ns, *clock_).dump(),
          stored->mod_revision};
  } else {
    op = {store::WriteOp::Kind::kDelete, key, "", stored->mod_revision};
  }
  auto written = store_->WriteSync(std::move(op));
  return written.ok() || written.status().IsNotFound();
}

}  // namespace tenure::server
