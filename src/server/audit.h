// Auditor: the audit log's events, as kube-apiserver's audit filter makes them (audit.k8s.io/v1
// Event, one JSON line each): for every request its policy records, RequestReceived when it
// arrives, ResponseStarted when a long-running response (a watch) starts, and ResponseComplete
// with the answer's status; the user (the authenticated one, and the impersonated one), source
// IPs (X-Forwarded-For, X-Real-Ip, then the peer), user agent, the object the request names, the
// authorization decision and reason as annotations, and, by level, the request and response
// bodies (never for non-resource requests). Requests refused for their credentials (401) are
// recorded too, without a user.
#pragma once

#include <memory>

#include "server/audit_log.h"
#include "server/audit_policy.h"
#include "server/authorization_attributes.h"
#include "server/http_server.h"
#include "tenure/clock.h"

namespace tenure::server {

class AuditedRequest;  // one request's event (audit.cc)

class Auditor {
 public:
  Auditor(AuditPolicy policy, std::unique_ptr<AuditLogFile> log, std::shared_ptr<Clock> clock);
  ~Auditor();

  // The event of a request, its RequestReceived stage written; null when the policy records
  // none of it. `requester` is the authenticated user (attributes.user may be the impersonated
  // one); `authenticated` false: the credentials were refused.
  std::shared_ptr<AuditedRequest> Begin(const HttpRequest& request,
                                        const AuthorizationAttributes& attributes,
                                        const UserInfo& requester, bool authenticated);
  // Records the authorization decision on the event.
  static void Authorized(AuditedRequest* event, bool allowed, const std::string& reason);
  // A responder that records the answer (ResponseStarted, ResponseComplete) and passes it on.
  static std::shared_ptr<Responder> Watch(std::shared_ptr<AuditedRequest> event,
                                          std::shared_ptr<Responder> responder);

  uint64_t write_errors() const { return log_->write_errors(); }

 private:
  AuditPolicy policy_;
  std::unique_ptr<AuditLogFile> log_;
  std::shared_ptr<Clock> clock_;
};

// The IPs a request came from, as kube's SourceIPs: X-Forwarded-For's, then X-Real-Ip, then the
// peer address when it is not the last of those.
std::vector<std::string> SourceIps(const HttpRequest& request);

}  // namespace tenure::server
