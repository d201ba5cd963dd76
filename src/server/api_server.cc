// ApiServer: the Kubernetes API as an HttpHandler: token check, non-resource paths, ResourceApi.
#include "server/api_server.h"

#include <nlohmann/json.hpp>

#include "server/request_info.h"
#include "server/resource_errors.h"
#include "server/response_format.h"

namespace tenure::server {

using nlohmann::json;

namespace {

HttpResponse JsonResponse(const json& body, std::string content_type = "application/json") {
  HttpResponse r;
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  r.content_type = std::move(content_type);
  return r;
}

bool IsPublicPath(const std::string& path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz" || path == "/version" ||
         path.rfind("/healthz/", 0) == 0 || path.rfind("/livez/", 0) == 0 ||
         path.rfind("/readyz/", 0) == 0;
}

}  // namespace

ApiServer::ApiServer(ApiServerOptions options, std::shared_ptr<ResourceApi> resources)
    : options_(std::move(options)),
      authenticator_(options_.token, options_.tokens),
      resources_(std::move(resources)),
      openapi_(options_.served),
      admission_(options_.admission) {}

HttpResponse ApiServer::Reject(const Status& status) { return ErrorResponse(status); }

bool ApiServer::Authenticated(const HttpRequest& request) const {
  if (options_.token.empty() && options_.tokens.users.empty()) return true;
  // Until authorization decides what an anonymous request may do, it gets the public paths only.
  return authenticator_.Authenticate(request).outcome == Authentication::Outcome::kAuthenticated;
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

void ApiServer::Handle(HttpRequest request, std::shared_ptr<Responder> responder) {
  if (IsPublicPath(request.path)) {
    if (request.path == "/version")
      return responder->Reply(JsonResponse(VersionInfo(options_.version)));
    return responder->Reply(TextResponse(200, "ok"));
  }
  if (!Authenticated(request)) {
    return responder->Reply(ErrorResponse(Status(Reason::kUnauthorized, "Unauthorized")));
  }
  RequestInfo info = ParseRequestInfo(request);
  if (!info.is_resource_request) {
    if (!ServeNonResource(request, *responder)) responder->Reply(ErrorResponse(NoSuchResource()));
    return;
  }
  const api::KindInfo* kind = ServedKind(info.group, info.version, info.resource);
  if (kind == nullptr) return responder->Reply(ErrorResponse(NoSuchResource()));
  RequestClass cls = Classify(info, request);
  auto shared_request = std::make_shared<HttpRequest>(std::move(request));
  admission_.Run(cls, std::move(responder),
                 [this, info, kind, shared_request](std::shared_ptr<Responder> admitted) {
                   resources_->Handle(info, *kind, std::move(*shared_request), std::move(admitted));
                 });
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
    OpenApiV2Reply v2 = OpenApiV2(accept);
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
