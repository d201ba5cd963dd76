// AuthCache: the RBAC objects of the store as snapshots, fed by a watch of the registry.
#include "server/auth_cache.h"

#include <nlohmann/json.hpp>

#include "api/codec.h"
#include "api/description.h"
#include "api/kinds.h"
#include "server/storage_key.h"

namespace tenure::server {
namespace {

constexpr std::string_view kRegistryPrefix = "/registry/";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The uid of a stored object.
std::string UidOf(const std::string& value) {
  auto json = nlohmann::json::parse(value, nullptr, false);
  if (json.is_discarded()) return "";
  return api::LenientMetadata(json).uid;
}

template <typename T>
T Decode(const api::KindInfo& kind, const std::string& value) {
  T out;
  auto json = nlohmann::json::parse(value, nullptr, false);
  if (!json.is_discarded()) api::DecodeTyped(*api::Describe(kind).object, json, &out);
  return out;
}

template <typename T>
std::vector<T> Values(const std::map<std::string, T>& objects) {
  std::vector<T> out;
  out.reserve(objects.size());
  for (const auto& [key, object] : objects) out.push_back(object);
  return out;
}

}  // namespace

struct AuthCache::Objects {
  std::map<std::string, api::Role> cluster_roles, roles;
  std::map<std::string, api::RoleBinding> cluster_role_bindings, role_bindings;
  std::map<std::string, std::string> service_account_uids;  // by storage key

  // Records a change of `key`; false when the key is not an RBAC object (the policy is the
  // same).
  bool Change(const std::string& key, const std::string* value) {
    if (StartsWith(key, StoragePrefix(api::ServiceAccountKind(), ""))) {
      if (value == nullptr) {
        service_account_uids.erase(key);
      } else {
        service_account_uids[key] = UidOf(*value);
      }
      return false;
    }
    return Put(api::ClusterRoleKind(), cluster_roles, key, value) ||
           Put(api::RoleKind(), roles, key, value) ||
           Put(api::ClusterRoleBindingKind(), cluster_role_bindings, key, value) ||
           Put(api::RoleBindingKind(), role_bindings, key, value);
  }

  RbacPolicy Policy() const {
    return {Values(cluster_roles), Values(roles), Values(cluster_role_bindings),
            Values(role_bindings)};
  }

 private:
  template <typename T>
  static bool Put(const api::KindInfo& kind, std::map<std::string, T>& objects,
                  const std::string& key, const std::string* value) {
    if (!StartsWith(key, StoragePrefix(kind, ""))) return false;
    if (value == nullptr) {
      objects.erase(key);
    } else {
      objects[key] = Decode<T>(kind, *value);
    }
    return true;
  }
};

AuthCache::AuthCache(std::shared_ptr<store::Store> store)
    : store_(std::move(store)),
      objects_(std::make_unique<Objects>()),
      snapshot_(std::make_shared<RbacPolicy>()) {}

AuthCache::~AuthCache() { watch_.reset(); }

Result<std::shared_ptr<AuthCache>> AuthCache::Start(std::shared_ptr<store::Store> store) {
  std::shared_ptr<AuthCache> cache(new AuthCache(store));
  // Each kind is listed at its own revision; replaying the watch from the oldest of them applies
  // every later change in order, so the maps converge on the store's state.
  int64_t from = 0;
  for (const api::KindInfo* kind :
       {&api::ClusterRoleKind(), &api::RoleKind(), &api::ClusterRoleBindingKind(),
        &api::RoleBindingKind(), &api::ServiceAccountKind()}) {
    auto list = store->List(StoragePrefix(*kind, ""));
    if (!list.ok()) return list.status();
    for (const store::KeyValue& kv : list->items) cache->objects_->Change(kv.key, &kv.value);
    if (from == 0 || list->revision < from) from = list->revision;
  }
  cache->snapshot_ = std::make_shared<RbacPolicy>(cache->objects_->Policy());
  cache->revision_ = from;
  std::weak_ptr<AuthCache> weak = cache;
  auto watch = store->Watch(kRegistryPrefix, from, [weak](const std::vector<store::Event>& events) {
    if (auto self = weak.lock()) self->Apply(events);
  });
  if (!watch.ok()) return watch.status();
  cache->watch_ = std::move(*watch);
  return cache;
}

void AuthCache::Apply(const std::vector<store::Event>& events) {
  std::lock_guard<std::mutex> lock(mu_);
  bool changed = false;
  for (const store::Event& e : events) {
    const std::string* value = e.type == store::Event::Type::kDeleted ? nullptr : &e.kv.value;
    changed = objects_->Change(e.kv.key, value) || changed;
    revision_ = std::max(revision_, e.kv.mod_revision);
  }
  if (changed) snapshot_ = std::make_shared<RbacPolicy>(objects_->Policy());
  caught_up_.notify_all();
}

std::shared_ptr<const RbacPolicy> AuthCache::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snapshot_;
}

std::optional<std::string> AuthCache::ServiceAccountUidAtHand(const std::string& namespace_,
                                                              const std::string& name) const {
  const std::string key = StorageKey(api::ServiceAccountKind(), namespace_, name);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_->service_account_uids.find(key);
  if (it == objects_->service_account_uids.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> AuthCache::ServiceAccountUid(const std::string& namespace_,
                                                        const std::string& name) {
  if (auto uid = ServiceAccountUidAtHand(namespace_, name)) return uid;
  if (!WaitForCurrent(std::chrono::seconds(1))) return std::nullopt;
  return ServiceAccountUidAtHand(namespace_, name);
}

bool AuthCache::WaitForCurrent(std::chrono::milliseconds timeout) {
  const int64_t target = store_->CurrentRevision();
  std::unique_lock<std::mutex> lock(mu_);
  if (caught_up_.wait_for(lock, timeout, [&] { return revision_ >= target; })) return true;
  // The watch delivers only the registry's changes; a store shared with other keys (one etcd for
  // several services) has revisions it never sees. What was acknowledged before the wait has
  // been delivered by now: count up to `target` as seen, so the next wait does not wait again.
  revision_ = std::max(revision_, target);
  return false;
}

}  // namespace tenure::server
