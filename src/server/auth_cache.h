// AuthCache: what authentication and authorization read of the store on every request, kept
// current by one watch of the registry (as kube-apiserver's authenticators and RBAC authorizer
// read informers): every Role, ClusterRole, RoleBinding and ClusterRoleBinding, as immutable
// snapshots that request threads read without locking the store, and the uid of every
// ServiceAccount (tokens of a deleted or recreated account are refused).
//
// Like kube's informers it lags the store by the watch's delivery; a caller that must see every
// write acknowledged so far (a denial that a just-created binding might lift) calls
// WaitForCurrent first. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "server/rbac_authorizer.h"
#include "store/store.h"
#include "tenure/status.h"

namespace tenure::server {

class AuthCache {
 public:
  // Lists the four kinds and watches the registry from there.
  static Result<std::shared_ptr<AuthCache>> Start(std::shared_ptr<store::Store> store);
  ~AuthCache();

  std::shared_ptr<const RbacPolicy> Snapshot() const;
  // The uid of the ServiceAccount, or nullopt when it does not exist (after waiting for the
  // cache to reflect every acknowledged write: an account created just before is found).
  std::optional<std::string> ServiceAccountUid(const std::string& namespace_,
                                               const std::string& name);
  // The uid of the ServiceAccount if the cache holds it now, without waiting (nullopt does not
  // say that the account does not exist).
  std::optional<std::string> ServiceAccountUidAtHand(const std::string& namespace_,
                                                     const std::string& name) const;
  // Waits until the snapshot reflects every write the store had acknowledged when called, or
  // `timeout` passed; true when it does.
  bool WaitForCurrent(std::chrono::milliseconds timeout);

  struct Objects;  // the decoded objects by storage key (auth_cache.cc)

 private:
  explicit AuthCache(std::shared_ptr<store::Store> store);
  void Apply(const std::vector<store::Event>& events);

  std::shared_ptr<store::Store> store_;
  mutable std::mutex mu_;
  std::condition_variable caught_up_;
  std::unique_ptr<Objects> objects_;  // guarded by mu_
  std::shared_ptr<const RbacPolicy> snapshot_;
  int64_t revision_ = 0;  // the last revision the snapshot reflects
  std::unique_ptr<store::WatchHandle> watch_;
};

}  // namespace tenure::server
