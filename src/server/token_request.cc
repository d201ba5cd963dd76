// TokenRequestApi: tokens for ServiceAccounts, signed by the server.
#include "server/token_request.h"

#include <nlohmann/json.hpp>

#include "api/kinds.h"
#include "api/time.h"
#include "api/validation.h"
#include "server/object_meta.h"
#include "server/request_body.h"
#include "server/resource_errors.h"
#include "server/response_format.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr int64_t kDefaultExpirationSeconds = 3600;

Status Mismatch(const std::string& name, const char* field, const std::string& value,
                const char* what) {
  return api::InvalidStatus(
      api::TokenRequestKind().qualified_kind(), name,
      {api::Invalid(field, value,
                    std::string("must match the service account ") + what + " if specified")});
}

}  // namespace

TokenRequestApi::TokenRequestApi(std::shared_ptr<const ServiceAccountTokens> tokens,
                                 std::shared_ptr<AuthCache> accounts, std::shared_ptr<Clock> clock)
    : tokens_(std::move(tokens)), accounts_(std::move(accounts)), clock_(std::move(clock)) {}

void TokenRequestApi::Handle(const RequestInfo& info, const HttpRequest& request,
                             Responder& responder) const {
  auto fail = [&](const Status& s) { responder.Reply(ErrorResponse(s)); };
  // The deprecated /watch/ paths give every method the watch verb: kube-apiserver routes no
  // POST there, and a watch right must never mint tokens.
  if (!tokens_ || !accounts_ || info.name.empty() || info.namespace_.empty() || info.legacy_watch) {
    return fail(NoSuchResource());
  }
  if (request.method != "POST") {
    return fail(Status(Reason::kMethodNotAllowed,
                       "the server does not allow this method on the requested resource"));
  }
  const api::KindInfo& kind = api::TokenRequestKind();
  auto body = DecodeBody(request);
  if (!body.ok()) return fail(body.status());
  auto decoded = api::Canonicalize(kind, *body, DecodeOptionsOf(request));
  if (!decoded.ok()) return fail(decoded.status());
  json object = std::move(*decoded);
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  const std::string body_name = MetadataString(object, "name");
  const std::string body_namespace = MetadataString(object, "namespace");
  if (!body_name.empty() && body_name != info.name) {
    return fail(Mismatch(info.name, "metadata.name", body_name, "name"));
  }
  if (!body_namespace.empty() && body_namespace != info.namespace_) {
    return fail(Mismatch(info.name, "metadata.namespace", body_namespace, "namespace"));
  }
  std::optional<std::string> uid = accounts_->ServiceAccountUid(info.namespace_, info.name);
  if (!uid) {
    Status missing = Status::NotFound("serviceaccounts \"" + info.name + "\" not found");
    missing.set_details({.name = info.name, .kind = "serviceaccounts"});
    return fail(missing);
  }
  json& spec = object["spec"];
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("expirationSeconds")) spec["expirationSeconds"] = kDefaultExpirationSeconds;
  if (!spec["audiences"].is_array() || spec["audiences"].empty()) {
    spec["audiences"] = json::array({tokens_->issuer()});
  }
  // The answer names the account, as the URL does.
  meta["name"] = info.name;
  meta["namespace"] = info.namespace_;
  if (Status valid = api::ValidateCreate(kind, object); !valid.ok()) return fail(valid);
  if (spec.contains("boundObjectRef")) {
    const json& ref = spec["boundObjectRef"];
    const std::string bound_kind = ref.value("kind", "");
    if (bound_kind == "Pod" || bound_kind == "Secret" || bound_kind == "Node") {
      std::string resource = bound_kind == "Pod"      ? "pods"
                             : bound_kind == "Secret" ? "secrets"
                                                      : "nodes";
      return fail(Status::NotFound(resource + " \"" + ref.value("name", "") + "\" not found"));
    }
    return fail(Status::BadRequest("cannot bind token to object of type " + bound_kind));
  }
  const auto now = clock_->wall_now();
  const int64_t issued =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const int64_t lifetime = spec["expirationSeconds"].get<int64_t>();
  ServiceAccountClaims claims{.namespace_ = info.namespace_,
                              .name = info.name,
                              .uid = *uid,
                              .audiences = spec["audiences"].get<std::vector<std::string>>(),
                              .issued_at = issued,
                              .expires = issued + lifetime,
                              .id = NewUid()};
  object["status"] = {{"token", tokens_->Sign(claims)},
                      {"expirationTimestamp", api::FormatTime(std::chrono::system_clock::time_point(
                                                  std::chrono::seconds(claims.expires)))}};
  meta["creationTimestamp"] = api::FormatTime(now);
  HttpResponse r;
  r.status = 201;
  r.body = object.dump();
  responder.Reply(std::move(r));
}

}  // namespace tenure::server
