// ApiServer: the Kubernetes API as an HttpHandler: token check, non-resource paths, ResourceApi.
#include "server/api_server.h"

#include "api/url.h"

#include <nlohmann/json.hpp>

#include "server/forbidden.h"
#include "server/impersonation.h"
#include "server/rbac_escalation.h"
#include "server/request_attributes.h"
#include "server/request_info.h"
#include "server/resource_errors.h"
#include "server/response_format.h"
#include "server/warnings.h"

namespace tenure::server {

using nlohmann::json;

namespace {

HttpResponse JsonResponse(const json& body, std::string content_type = "application/json") {
  HttpResponse r;
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  r.content_type = std::move(content_type);
  return r;
}

bool IsProbeOrVersionPath(const std::string& path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz" || path == "/version" ||
         path.rfind("/healthz/", 0) == 0 || path.rfind("/livez/", 0) == 0 ||
         path.rfind("/readyz/", 0) == 0;
}

// go-restful, which serves /api, /apis and /version in kube-apiserver, trims the slashes at the
// end of a path before it matches a route: "/api/v1/" and "/version/" are "/api/v1" and
// "/version" there. Other paths (/healthz, /openapi/v2) match exactly, as kube's mux does.
std::string WithoutGoRestfulSlashes(const std::string& path) {
  if (path.size() < 2) return path;
  const size_t end = path.find('/', 1);
  const std::string_view root =
      std::string_view(path).substr(1, end == std::string::npos ? std::string::npos : end - 1);
  if (root != "api" && root != "apis" && root != "version") return path;
  size_t keep = path.size();
  while (keep > 1 + root.size() && path[keep - 1] == '/') --keep;
  return path.substr(0, keep);
}

bool IsRbacKind(const api::KindInfo& kind) { return kind.group == "rbac.authorization.k8s.io"; }

ServiceAccountAuthentication ServiceAccountsOf(const ApiServerOptions& options) {
  if (!options.service_account_tokens || !options.policy) return {};
  return {
      .tokens = options.service_account_tokens,
      .account_uid =
          [cache = options.policy](const std::string& ns, const std::string& name, bool may_wait) {
            if (auto uid = cache->ServiceAccountUidAtHand(ns, name)) {
              return AccountLookup{.uid = std::move(uid)};
            }
            if (!may_wait) return AccountLookup{.decided = false};
            return AccountLookup{.uid = cache->ServiceAccountUid(ns, name)};
          },
      .clock = Clock::Real()};
}

}  // namespace

ApiServer::ApiServer(ApiServerOptions options, std::shared_ptr<ResourceApi> resources)
    : options_(std::move(options)),
      authenticator_(options_.token, options_.tokens, ServiceAccountsOf(options_)),
      authorizer_(options_.policy),
      reviews_(authorizer_, Clock::Real()),
      token_requests_(options_.service_account_tokens, options_.policy, Clock::Real()),
      resources_(std::move(resources)),
      openapi_(options_.served),
      admission_(options_.admission) {}

HttpResponse ApiServer::Reject(const Status& status) { return ErrorResponse(status); }

Authentication ApiServer::Authenticate(const HttpRequest& request, bool may_wait) const {
  if (options_.token.empty() && options_.tokens.users.empty()) {
    return {Authentication::Outcome::kAnonymous, AnonymousUser()};
  }
  return authenticator_.Authenticate(request, may_wait);
}

const api::KindInfo* ApiServer::ServedKind(const std::string& group, const std::string& version,
                                           const std::string& resource) const {
  for (const auto& served : options_.served) {
    if (served.kind->group == group && served.version == version &&
        served.kind->resource == resource) {
      return served.kind;
    }
  }
  return nullptr;
}

void ApiServer::Mount(std::shared_ptr<WebApp> app) {
  std::lock_guard lock(mounted_mu_);
  mounted_.push_back(app);
  app_.store(app.get(), std::memory_order_release);
}

WebApp* ApiServer::AppFor(const std::string& path) const {
  WebApp* app = app_.load(std::memory_order_acquire);
  return app != nullptr && PathUnder(path, app->prefix()) ? app : nullptr;
}

void ApiServer::Handle(HttpRequest request, std::shared_ptr<Responder> responder) {
  if (auto app = AppFor(request.path); app && request.header("authorization").empty()) {
    // A browser's page loads carry the app's token in its cookie (web_app.h).
    if (std::string token = CookieValue(request.header("cookie"), app->token_cookie());
        !token.empty()) {
      request.headers.emplace_back("authorization", "Bearer " + api::PercentDecode(token));
    }
  }
  Authentication authentication = Authenticate(request, /*may_wait=*/false);
  if (authentication.outcome == Authentication::Outcome::kUndecided) {
    // A ServiceAccount token whose account the policy cache does not hold (created just now, or
    // deleted): decided once the cache reflects every acknowledged write, a wait that may block
    // on the store, so off the connection's thread.
    auto shared = std::make_shared<HttpRequest>(std::move(request));
    return admission_.RunBlocking(responder, [this, shared, responder] {
      Authentication decided = Authenticate(*shared, /*may_wait=*/true);
      Serve(std::move(*shared), responder, std::move(decided));
    });
  }
  Serve(std::move(request), std::move(responder), std::move(authentication));
}

void ApiServer::Serve(HttpRequest request, std::shared_ptr<Responder> responder,
                      Authentication authentication) {
  RequestInfo info = ParseRequestInfo(request);
  if (options_.request_metrics) {
    options_.request_metrics->CountAnswer(RequestMetrics::MetricVerb(info, request), *responder);
  }
  WebApp* app = info.is_resource_request ? nullptr : AppFor(request.path);
  if (app && authentication.outcome != Authentication::Outcome::kAuthenticated) {
    const bool refused = authentication.outcome == Authentication::Outcome::kUnauthorized;
    if (options_.auditor) {
      responder = Auditor::Watch(
          options_.auditor->Begin(request, RequestAttributes(request, info, authentication.user),
                                  authentication.user, !refused),
          std::move(responder));
    }
    return app->HandleUnauthenticated(std::move(request), std::move(responder), refused);
  }
  if (authentication.outcome == Authentication::Outcome::kUnauthorized) {
    // Recorded too, without a user: who tried with what.
    if (options_.auditor) {
      responder = Auditor::Watch(
          options_.auditor->Begin(request, RequestAttributes(request, info, {}), {}, false),
          std::move(responder));
    }
    return responder->Reply(ErrorResponse(Status(Reason::kUnauthorized, "Unauthorized")));
  }
  auto user = Impersonate(request, authentication.user, authorizer_);
  AuthorizationAttributes attributes =
      RequestAttributes(request, info, user.ok() ? *user : authentication.user);
  std::shared_ptr<AuditedRequest> audit;
  if (options_.auditor) {
    audit = options_.auditor->Begin(request, attributes, authentication.user, true);
    responder = Auditor::Watch(audit, std::move(responder));
  }
  if (!user.ok()) return responder->Reply(ErrorResponse(user.status()));
  if (!info.is_resource_request) {
    AuthorizationDecision decision = authorizer_.Authorize(attributes);
    Auditor::Authorized(audit.get(), decision.allowed, decision.reason);
    if (!decision.allowed) {
      return responder->Reply(ErrorResponse(ForbiddenStatus(attributes, decision.reason)));
    }
    if (app) return app->Handle(std::move(request), std::move(responder));
    // Authorized on the path as sent (kube's discovery roles name "/version/" too), served on
    // the path as go-restful routes it.
    request.path = WithoutGoRestfulSlashes(request.path);
    if (IsProbeOrVersionPath(request.path)) {
      if (request.path == "/version")
        return responder->Reply(JsonResponse(VersionInfo(options_.version)));
      return responder->Reply(TextResponse(200, "ok"));
    }
    if (!ServeNonResource(request, *responder)) responder->Reply(ErrorResponse(NoSuchResource()));
    return;
  }
  RequestClass cls = Classify(info, request);
  auto shared_request = std::make_shared<HttpRequest>(std::move(request));
  auto shared_attributes = std::make_shared<AuthorizationAttributes>(std::move(attributes));
  admission_.Run(
      cls, std::move(responder),
      [this, info, shared_request, shared_attributes,
       audit](std::shared_ptr<Responder> admitted) mutable {
        AuthorizationDecision decision = authorizer_.AuthorizeOnSnapshot(*shared_attributes);
        if (decision.allowed) {
          return ServeAuthorized(info, std::move(shared_request), shared_attributes, audit.get(),
                                 decision, std::move(admitted));
        }
        // A denial is decided again once the policy reflects every acknowledged
        // write: a wait that may block on the store, off the connection's thread.
        admitted->Post([this, info, shared_request, shared_attributes, audit, admitted]() mutable {
          ServeAuthorized(info, std::move(shared_request), shared_attributes, audit.get(),
                          authorizer_.Authorize(*shared_attributes), std::move(admitted));
        });
      });
}

void ApiServer::ServeAuthorized(const RequestInfo& info, std::shared_ptr<HttpRequest> request,
                                const std::shared_ptr<AuthorizationAttributes>& attributes,
                                AuditedRequest* audit, const AuthorizationDecision& decision,
                                std::shared_ptr<Responder> admitted) {
  Auditor::Authorized(audit, decision.allowed, decision.reason);
  if (!decision.allowed) {
    return admitted->Reply(ErrorResponse(ForbiddenStatus(*attributes, decision.reason)));
  }
  const api::KindInfo* kind = ServedKind(info.group, info.version, info.resource);
  if (kind == nullptr) return admitted->Reply(ErrorResponse(NoSuchResource()));
  if (kind == &api::ServiceAccountKind() && info.subresource == "token") {
    return token_requests_.Handle(info, *request, *admitted);
  }
  if (!kind->stored) {
    return reviews_.Handle(info, *kind, *request, attributes->user, *admitted);
  }
  std::vector<std::string> warnings;
  if (std::string w = DeprecationWarning(*kind, info.version, options_.version.minor); !w.empty()) {
    warnings.push_back(std::move(w));
  }
  resources_->Handle(info, *kind, std::move(*request), std::move(admitted),
                     WriteAdmissionFor(*kind, attributes), std::move(warnings));
}

WriteAdmission ApiServer::WriteAdmissionFor(
    const api::KindInfo& kind, std::shared_ptr<const AuthorizationAttributes> attributes) const {
  const bool rbac = IsRbacKind(kind);
  // Only writes that may create without a create verb (PUT, apply) or write RBAC objects.
  const bool may_create_otherwise = attributes->verb == "update" || attributes->verb == "patch";
  if (!rbac && !may_create_otherwise) return {};
  return [this, rbac, attributes](const api::KindInfo& written, const json& object,
                                  bool creating) -> Status {
    if (creating && attributes->verb != "create") {
      // kube's withAuthorization: an update or apply that creates needs the right to create.
      AuthorizationAttributes create = *attributes;
      create.verb = "create";
      AuthorizationDecision decision = authorizer_.Authorize(create);
      if (!decision.allowed) return ForbiddenStatus(create, decision.reason);
    }
    if (!rbac) return Status::Ok();
    return CheckNoEscalation(authorizer_, written, attributes->user, object);
  };
}

bool ApiServer::ServeNonResource(const HttpRequest& request, Responder& responder) {
  if (request.method != "GET" && request.method != "HEAD") return false;
  const std::string& path = request.path;
  std::string accept = request.header("accept");
  if (path == "/api" || path == "/apis") {
    if (auto v = AggregatedDiscoveryVersion(accept)) {
      responder.Reply(JsonResponse(AggregatedDiscovery(options_.served, path == "/api", *v),
                                   std::string(AggregatedDiscoveryContentType(*v))));
      return true;
    }
    responder.Reply(JsonResponse(path == "/api"
                                     ? ApiVersions(options_.served, options_.server_address)
                                     : ApiGroupList(options_.served)));
    return true;
  }
  if (path == "/api/v1") {
    if (auto list = ApiResourceList(options_.served, "", "v1")) {
      responder.Reply(JsonResponse(*list));
      return true;
    }
    return false;
  }
  if (path.rfind("/apis/", 0) == 0) {
    std::string rest = path.substr(6);
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    size_t slash = rest.find('/');
    if (slash == std::string::npos) {
      if (auto group = ApiGroup(options_.served, rest)) {
        responder.Reply(JsonResponse(*group));
        return true;
      }
      return false;
    }
    std::string group = rest.substr(0, slash), version = rest.substr(slash + 1);
    if (version.find('/') != std::string::npos) return false;
    if (auto list = ApiResourceList(options_.served, group, version)) {
      responder.Reply(JsonResponse(*list));
      return true;
    }
    return false;
  }
  if (path == "/metrics" && options_.metrics) {
    HttpResponse r;
    r.content_type = MetricsEndpoint::kContentType;
    r.body = options_.metrics->Render();
    responder.Reply(std::move(r));
    return true;
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    HttpResponse r;
    r.body = openapi_.index_body();
    responder.Reply(std::move(r));
    return true;
  }
  if (path.rfind("/openapi/v3/", 0) == 0) {
    const auto* doc = openapi_.Find(std::string_view(path).substr(12));
    if (doc == nullptr) return false;
    HttpResponse r;
    r.body = doc->body;
    r.headers.emplace_back("Etag", "\"" + doc->hash + "\"");
    responder.Reply(std::move(r));
    return true;
  }
  if (path == "/openapi/v2") {
    OpenApiV2Reply v2 = OpenApiV2(accept, openapi_);
    HttpResponse r;
    r.status = v2.status;
    r.content_type = v2.content_type;
    r.body = v2.body;
    responder.Reply(std::move(r));
    return true;
  }
  return false;
}

}  // namespace tenure::server
