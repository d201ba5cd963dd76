// ApiServer: the Kubernetes API as an HttpHandler, in kube-apiserver's filter order:
// authentication (authenticator.h; 401), impersonation (impersonation.h), admission (admission.h),
// authorization (authorizer.h; 403 with kube's message), then health, version, discovery, OpenAPI
// and /metrics, or ResourceApi for resource requests. Every error leaves as a Kubernetes Status
// object.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/admission.h"
#include "server/audit.h"
#include "server/authenticator.h"
#include "server/authorizer.h"
#include "server/discovery.h"
#include "server/http_server.h"
#include "server/metrics_endpoint.h"
#include "server/openapi.h"
#include "server/request_metrics.h"
#include "server/resource_api.h"
#include "server/review_api.h"
#include "server/token_request.h"
#include "server/web_app.h"

namespace tenure::server {

struct ApiServerOptions {
  // The admin bearer token (user tenure-admin in system:masters) and the users of a static token
  // file; with neither, requests are not authenticated (tests).
  std::string token;
  TokenFile tokens;
  std::vector<ServedVersion> served;
  EmulatedVersion version;
  std::string server_address;  // "127.0.0.1:6443", for /api's serverAddressByClientCIDRs
  std::shared_ptr<const MetricsEndpoint> metrics;  // GET /metrics (authenticated); null: 404
  AdmissionOptions admission;
  // The RBAC policy requests are authorized against (system:masters may do everything); null:
  // every request is allowed.
  std::shared_ptr<AuthCache> policy;
  // Signs and checks ServiceAccount tokens (with `policy`, which knows the accounts); null: no
  // TokenRequest, and JWTs are unknown tokens.
  std::shared_ptr<const ServiceAccountTokens> service_account_tokens;
  // Records requests to the audit log (audit.h); null: no audit log.
  std::shared_ptr<Auditor> auditor;
  // Counts every request by verb and status code (request_metrics.h); null: not counted.
  std::shared_ptr<RequestMetrics> request_metrics;
};

class ApiServer final : public HttpHandler {
 public:
  ApiServer(ApiServerOptions options, std::shared_ptr<ResourceApi> resources);
  void Handle(HttpRequest request, std::shared_ptr<Responder> responder) override;
  HttpResponse Reject(const Status& status) override;
  const Admission& admission() const { return admission_; }
  // Serves `app` under its prefix from now on (web_app.h); before, those paths are 404.
  void Mount(std::shared_ptr<WebApp> app);

 private:
  // Who sent the request: the authenticated user, or anonymous without credentials (also when
  // the server authenticates no one); kUnauthorized for credentials no one knows.
  Authentication Authenticate(const HttpRequest& request, bool may_wait) const;
  // A request once its sender is known: the filters after authentication.
  void Serve(HttpRequest request, std::shared_ptr<Responder> responder,
             Authentication authentication);
  bool ServeNonResource(const HttpRequest& request, Responder& responder);
  // The mounted app when `path` is under its prefix, else null.
  WebApp* AppFor(const std::string& path) const;
  // A resource request past admission, once authorized (or refused) by `decision`.
  void ServeAuthorized(const RequestInfo& info, std::shared_ptr<HttpRequest> request,
                       const std::shared_ptr<AuthorizationAttributes>& attributes,
                       AuditedRequest* audit, const AuthorizationDecision& decision,
                       std::shared_ptr<Responder> admitted);
  // What the request's writes must also pass: the right to create when an update or apply
  // creates, and RBAC escalation prevention for the RBAC kinds; empty when nothing.
  WriteAdmission WriteAdmissionFor(const api::KindInfo& kind,
                                   std::shared_ptr<const AuthorizationAttributes> attributes) const;
  const api::KindInfo* ServedKind(const std::string& group, const std::string& version,
                                  const std::string& resource) const;

  ApiServerOptions options_;
  Authenticator authenticator_;
  Authorizer authorizer_;
  ReviewApi reviews_;
  TokenRequestApi token_requests_;
  std::shared_ptr<ResourceApi> resources_;
  OpenApiDocuments openapi_;
  Admission admission_;
  // The mounted app, published once set up; every app ever mounted stays alive with the server
  // (a request may still hold the one it read), so readers need no lock.
  std::atomic<WebApp*> app_{nullptr};
  std::mutex mounted_mu_;
  std::vector<std::shared_ptr<WebApp>> mounted_;
};

}  // namespace tenure::server
