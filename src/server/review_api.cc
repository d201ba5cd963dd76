// ReviewApi: access reviews, rules reviews and SelfSubjectReview, answered from the authorizer.
#include "server/review_api.h"

#include <nlohmann/json.hpp>

#include "api/time.h"
#include "server/rbac_escalation.h"
#include "server/request_body.h"
#include "server/resource_errors.h"
#include "server/response_format.h"
#include "server/routes.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr std::string_view kAllVersions = "*";

std::string StringOf(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// kube's ResourceAttributesFrom / NonResourceAttributesFrom.
AuthorizationAttributes AttributesOf(const json& spec, UserInfo user) {
  AuthorizationAttributes a;
  a.user = std::move(user);
  if (auto it = spec.find("resourceAttributes"); it != spec.end() && it->is_object()) {
    a.verb = StringOf(*it, "verb");
    a.namespace_ = StringOf(*it, "namespace");
    a.api_group = StringOf(*it, "group");
    // An empty version means every version (kube's matchAllVersionIfEmpty).
    std::string version = StringOf(*it, "version");
    a.api_version = version.empty() ? std::string(kAllVersions) : std::move(version);
    a.resource = StringOf(*it, "resource");
    a.subresource = StringOf(*it, "subresource");
    a.name = StringOf(*it, "name");
    return a;
  }
  const json& attributes = spec.at("nonResourceAttributes");
  a.resource_request = false;
  a.verb = StringOf(attributes, "verb");
  a.path = StringOf(attributes, "path");
  return a;
}

// The user a SubjectAccessReview asks about: spec's, as given (no group is added).
UserInfo SubjectOf(const json& spec) {
  UserInfo user;
  user.name = StringOf(spec, "user");
  user.uid = StringOf(spec, "uid");
  if (auto it = spec.find("groups"); it != spec.end() && it->is_array()) {
    for (const json& g : *it) {
      if (g.is_string()) user.groups.push_back(g.get<std::string>());
    }
  }
  return user;
}

json AccessStatus(const AuthorizationDecision& decision) {
  json status = {{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  return status;
}

// kube's RulesFor over every authorizer: RBAC's rules split into resource and URL rules; a
// server that authorizes nothing allows everything.
json RulesStatus(const Authorizer& authorizer, const UserInfo& user, const std::string& ns) {
  json resource_rules = json::array();
  json url_rules = json::array();
  std::shared_ptr<const RbacPolicy> policy = authorizer.CurrentPolicy();
  std::vector<std::string> errors;
  std::vector<api::PolicyRule> rules;
  if (policy == nullptr) {
    rules = {{.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}},
             {.verbs = {"*"}, .non_resource_urls = {"*"}}};
  } else {
    rules = RulesFor(*policy, user, ns, &errors);
  }
  for (const api::PolicyRule& rule : rules) {
    if (!rule.resources.empty()) {
      json r = {{"verbs", rule.verbs}};
      if (!rule.api_groups.empty()) r["apiGroups"] = rule.api_groups;
      r["resources"] = rule.resources;
      if (!rule.resource_names.empty()) r["resourceNames"] = rule.resource_names;
      resource_rules.push_back(std::move(r));
    }
    if (!rule.non_resource_urls.empty()) {
      url_rules.push_back({{"verbs", rule.verbs}, {"nonResourceURLs", rule.non_resource_urls}});
    }
  }
  json status = {{"resourceRules", std::move(resource_rules)},
                 {"nonResourceRules", std::move(url_rules)},
                 {"incomplete", false}};
  if (!errors.empty()) {
    std::string text = "[";
    for (size_t i = 0; i < errors.size(); ++i) {
      if (i > 0) text += ", ";
      text += errors[i];
    }
    text += ']';
    status["evaluationError"] = std::move(text);
  }
  return status;
}

HttpResponse Created(const json& object) {
  HttpResponse r;
  r.status = 201;
  r.body = object.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

}  // namespace

ReviewApi::ReviewApi(const Authorizer& authorizer, std::shared_ptr<Clock> clock)
    : authorizer_(authorizer), clock_(std::move(clock)) {}

void ReviewApi::Handle(const RequestInfo& info, const api::KindInfo& kind,
                       const HttpRequest& request, const UserInfo& user,
                       Responder& responder) const {
  auto fail = [&](const Status& s) { responder.Reply(ErrorResponse(s)); };
  if (Status routed = CheckRoute(kind, info, request.method); !routed.ok()) return fail(routed);
  auto body = DecodeBody(request);
  if (!body.ok()) return fail(body.status());
  auto decoded = api::Canonicalize(kind, *body, DecodeOptionsOf(request));
  if (!decoded.ok()) return fail(decoded.status());
  json object = std::move(*decoded);
  if (kind.namespaced) {
    json& meta = object["metadata"];
    if (!meta.is_object()) meta = json::object();
    const std::string given = StringOf(meta, "namespace");
    if (!given.empty() && given != info.namespace_) {
      return fail(Status::BadRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    }
    meta["namespace"] = info.namespace_;
  }
  if (Status valid = api::ValidateCreate(kind, object); !valid.ok()) return fail(valid);
  json spec = object.value("spec", json::object());
  if (&kind == &api::SelfSubjectAccessReviewKind()) {
    object["status"] = AccessStatus(authorizer_.Authorize(AttributesOf(spec, user)));
  } else if (&kind == &api::SubjectAccessReviewKind() ||
             &kind == &api::LocalSubjectAccessReviewKind()) {
    object["status"] = AccessStatus(authorizer_.Authorize(AttributesOf(spec, SubjectOf(spec))));
  } else if (&kind == &api::SelfSubjectRulesReviewKind()) {
    const std::string ns = StringOf(spec, "namespace");
    if (ns.empty()) return fail(Status::BadRequest("no namespace on request"));
    object["status"] = RulesStatus(authorizer_, user, ns);
  } else if (&kind == &api::SelfSubjectReviewKind()) {
    json user_info = json::object();
    if (!user.name.empty()) user_info["username"] = user.name;
    if (!user.uid.empty()) user_info["uid"] = user.uid;
    if (!user.groups.empty()) user_info["groups"] = user.groups;
    object["metadata"]["creationTimestamp"] = api::FormatTime(clock_->wall_now());
    object["status"] = {{"userInfo", std::move(user_info)}};
  } else {
    return fail(NoSuchResource());
  }
  responder.Reply(Created(object));
}

}  // namespace tenure::server
