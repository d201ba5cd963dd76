// ApiServer: the Kubernetes API as an HttpHandler. Authenticates the request (authenticator.h),
// serves health, version, discovery, OpenAPI and /metrics, and hands resource requests to
// ResourceApi. Every error leaves as a Kubernetes Status object.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/admission.h"
#include "server/authenticator.h"
#include "server/discovery.h"
#include "server/http_server.h"
#include "server/metrics_endpoint.h"
#include "server/openapi.h"
#include "server/resource_api.h"

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
};

class ApiServer final : public HttpHandler {
 public:
  ApiServer(ApiServerOptions options, std::shared_ptr<ResourceApi> resources);
  void Handle(HttpRequest request, std::shared_ptr<Responder> responder) override;
  HttpResponse Reject(const Status& status) override;
  const Admission& admission() const { return admission_; }

 private:
  // Whether the request comes from a user the server knows (always, without credentials set).
  bool Authenticated(const HttpRequest& request) const;
  bool ServeNonResource(const HttpRequest& request, Responder& responder);
  const api::KindInfo* ServedKind(const std::string& group, const std::string& version,
                                  const std::string& resource) const;

  ApiServerOptions options_;
  Authenticator authenticator_;
  std::shared_ptr<ResourceApi> resources_;
  OpenApiV3Documents openapi_;
  Admission admission_;
};

}  // namespace tenure::server
