// Authorizer: system:masters, then RBAC over the policy cache.
#include "server/authorizer.h"

#include <algorithm>

namespace tenure::server {

bool IsPrivileged(const UserInfo& user) {
  return std::find(user.groups.begin(), user.groups.end(), kSystemMasters) != user.groups.end();
}

Authorizer::Authorizer(std::shared_ptr<AuthCache> policy, std::chrono::milliseconds catch_up)
    : policy_(std::move(policy)), catch_up_(catch_up) {}

std::shared_ptr<const RbacPolicy> Authorizer::CurrentPolicy() const {
  if (policy_ == nullptr) return nullptr;
  policy_->WaitForCurrent(catch_up_);
  return policy_->Snapshot();
}

AuthorizationDecision Authorizer::AuthorizeOnSnapshot(
    const AuthorizationAttributes& attributes) const {
  if (policy_ == nullptr || IsPrivileged(attributes.user)) return {true, ""};
  return AuthorizeRbac(*policy_->Snapshot(), attributes);
}

AuthorizationDecision Authorizer::Authorize(const AuthorizationAttributes& attributes) const {
  AuthorizationDecision decision = AuthorizeOnSnapshot(attributes);
  if (decision.allowed) return decision;
  // Denied on a snapshot that may lag the store: decide again once it reflects every write
  // acknowledged so far.
  if (!policy_->WaitForCurrent(catch_up_)) return decision;
  return AuthorizeRbac(*policy_->Snapshot(), attributes);
}

}  // namespace tenure::server
