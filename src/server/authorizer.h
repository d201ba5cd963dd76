// Authorizer: whether a user may do what a request asks, as kube-apiserver's authorizer chain
// decides it (--authorization-mode=RBAC): members of system:masters may do everything (its
// privileged-group authorizer, before RBAC), everyone else what RBAC allows (rbac_authorizer.h)
// over the policy cache. A denial is decided on a policy that reflects every write acknowledged
// before the request (the cache is waited for), so a client that just created a binding is not
// refused because the watch has not delivered it yet. Thread-safe.
#pragma once

#include <chrono>
#include <memory>

#include "server/auth_cache.h"
#include "server/authorization_attributes.h"
#include "server/rbac_authorizer.h"

namespace tenure::server {

class Authorizer {
 public:
  // `policy` null: every request is allowed (a server without authentication).
  explicit Authorizer(std::shared_ptr<AuthCache> policy,
                      std::chrono::milliseconds catch_up = std::chrono::seconds(1));

  AuthorizationDecision Authorize(const AuthorizationAttributes& attributes) const;
  // Decides on the policy as the cache holds it now, without waiting for the store: an allow is
  // final, a denial may yet be lifted by Authorize (whose wait may block on the store's round
  // trip, so it is not done on a connection's thread).
  AuthorizationDecision AuthorizeOnSnapshot(const AuthorizationAttributes& attributes) const;
  // The policy the decisions read (null without authentication), once it reflects every write
  // acknowledged so far (or the catch-up time passed): for escalation checks and rules reviews.
  std::shared_ptr<const RbacPolicy> CurrentPolicy() const;

 private:
  std::shared_ptr<AuthCache> policy_;
  std::chrono::milliseconds catch_up_;
};

// Whether the user is in system:masters.
bool IsPrivileged(const UserInfo& user);

}  // namespace tenure::server
