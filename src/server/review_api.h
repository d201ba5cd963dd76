// ReviewApi: the create-only kinds that are answered at once and never stored, as
// kube-apiserver's registries of them:
//  - SelfSubjectAccessReview: may the requesting user do what spec's resourceAttributes or
//    nonResourceAttributes describe (`kubectl auth can-i`);
//  - SubjectAccessReview and LocalSubjectAccessReview: may spec's user and groups (the local
//    one: in its namespace only);
//  - SelfSubjectRulesReview: every rule the requesting user holds in spec.namespace (`kubectl
//    auth can-i --list`);
//  - SelfSubjectReview: who the server takes the requesting user to be (`kubectl auth whoami`),
//    impersonation applied.
// The body is decoded and validated like any object (kube's messages for a bad one); the
// answer is 201 with the object and its status filled in.
#pragma once

#include <memory>

#include "api/kinds.h"
#include "server/authorizer.h"
#include "server/http_server.h"
#include "server/request_info.h"
#include "server/user_info.h"
#include "tenure/clock.h"

namespace tenure::server {

class ReviewApi {
 public:
  ReviewApi(const Authorizer& authorizer, std::shared_ptr<Clock> clock);

  // `kind` is one with stored == false.
  void Handle(const RequestInfo& info, const api::KindInfo& kind, const HttpRequest& request,
              const UserInfo& user, Responder& responder) const;

 private:
  const Authorizer& authorizer_;
  std::shared_ptr<Clock> clock_;
};

}  // namespace tenure::server
