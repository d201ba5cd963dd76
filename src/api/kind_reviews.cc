// The review kinds, answered at once and never stored: authorization.k8s.io/v1
// SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview and
// SelfSubjectRulesReview, and authentication.k8s.io/v1 SelfSubjectReview (what `kubectl auth
// can-i` and `kubectl auth whoami` send). Protobuf numbers from their generated.proto.
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"

namespace tenure::api::internal {
namespace {

using E = Emit;

const ObjectDescription& ResourceAttributesObject() {
  static const ObjectDescription d{
      .go_name = "ResourceAttributes",
      .doc =
          "ResourceAttributes includes the authorization attributes available for resource "
          "requests to the Authorizer interface",
      .fields = {
          field::String("namespace", E::kOmitEmpty,
                        "Namespace is the namespace of the action being requested.  Currently, "
                        "there is no distinction between no namespace and all namespaces \"\" "
                        "(empty) is defaulted for LocalSubjectAccessReviews \"\" (empty) is empty "
                        "for cluster-scoped resources \"\" (empty) means \"all\" for namespace "
                        "scoped resources from a SubjectAccessReview or SelfSubjectAccessReview")
              .Proto(1),
          field::String("verb", E::kOmitEmpty,
                        "Verb is a kubernetes resource API verb, like: get, list, watch, create, "
                        "update, delete, proxy.  \"*\" means all.")
              .Proto(2),
          field::String("group", E::kOmitEmpty,
                        "Group is the API Group of the Resource.  \"*\" means all.")
              .Proto(3),
          field::String("version", E::kOmitEmpty,
                        "Version is the API Version of the Resource.  \"*\" means all.")
              .Proto(4),
          field::String("resource", E::kOmitEmpty,
                        "Resource is one of the existing resource types.  \"*\" means all.")
              .Proto(5),
          field::String("subresource", E::kOmitEmpty,
                        "Subresource is one of the existing resource types.  \"\" means none.")
              .Proto(6),
          field::String("name", E::kOmitEmpty,
                        "Name is the name of the resource being requested for a \"get\" or "
                        "deleted for a \"delete\". \"\" (empty) means all.")
              .Proto(7),
      }};
  return d;
}

const ObjectDescription& NonResourceAttributesObject() {
  static const ObjectDescription d{
      .go_name = "NonResourceAttributes",
      .doc =
          "NonResourceAttributes includes the authorization attributes available for "
          "non-resource requests to the Authorizer interface",
      .fields = {
          field::String("path", E::kOmitEmpty, "Path is the URL path of the request").Proto(1),
          field::String("verb", E::kOmitEmpty, "Verb is the standard HTTP verb").Proto(2),
      }};
  return d;
}

FieldDescription ResourceAttributesField() {
  return field::Object("resourceAttributes", E::kOmitEmpty, ResourceAttributesObject(),
                       "ResourceAuthorizationAttributes describes information for a resource "
                       "access request")
      .Proto(1);
}

FieldDescription NonResourceAttributesField() {
  return field::Object("nonResourceAttributes", E::kOmitEmpty, NonResourceAttributesObject(),
                       "NonResourceAttributes describes information for a non-resource access "
                       "request")
      .Proto(2);
}

const ObjectDescription& SelfSubjectAccessReviewSpecObject() {
  static const ObjectDescription d{
      .go_name = "SelfSubjectAccessReviewSpec",
      .doc =
          "SelfSubjectAccessReviewSpec is a description of the access request.  Exactly one "
          "of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be "
          "set",
      .fields = {ResourceAttributesField(), NonResourceAttributesField()}};
  return d;
}

const ObjectDescription& SubjectAccessReviewSpecObject() {
  static const ObjectDescription d{
      .go_name = "SubjectAccessReviewSpec",
      .doc =
          "SubjectAccessReviewSpec is a description of the access request.  Exactly one of "
          "ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set",
      .fields = {
          ResourceAttributesField(),
          NonResourceAttributesField(),
          field::String("user", E::kOmitEmpty,
                        "User is the user you're testing for. If you specify \"User\" but not "
                        "\"Groups\", then is it interpreted as \"What if User were not a member "
                        "of any groups")
              .Proto(3),
          field::StringList("groups", E::kOmitEmpty, "Groups is the groups you're testing for.")
              .ListType("atomic")
              .Proto(4),
          field::String("uid", E::kOmitEmpty, "UID information about the requesting user.")
              .Proto(6),
      }};
  return d;
}

const ObjectDescription& SubjectAccessReviewStatusObject() {
  static const ObjectDescription d{
      .go_name = "SubjectAccessReviewStatus",
      .doc = "SubjectAccessReviewStatus",
      .fields = {
          field::Bool("allowed", E::kAlways,
                      "Allowed is required. True if the action would be allowed, false "
                      "otherwise.")
              .Required()
              .OpenApiDefault(),
          field::Bool("denied", E::kOmitEmpty,
                      "Denied is optional. True if the action would be denied, otherwise false. "
                      "If both allowed is false and denied is false, then the authorizer has no "
                      "opinion on whether to authorize the action. Denied may not be true if "
                      "Allowed is true."),
          field::String("reason", E::kOmitEmpty,
                        "Reason is optional.  It indicates why a request was allowed or denied."),
          field::String("evaluationError", E::kOmitEmpty,
                        "EvaluationError is an indication that some error occurred during the "
                        "authorization check. It is entirely possible to get an error and be able "
                        "to continue determine authorization status in spite of it. For "
                        "instance, RBAC can be missing a role, but enough roles are still present "
                        "and bound to reason about the request."),
      }};
  return d;
}

const ObjectDescription& AccessReviewObject(std::string_view go_name, std::string doc,
                                            const ObjectDescription& spec) {
  auto* d = new ObjectDescription{
      .go_name = go_name,
      .doc = std::move(doc),
      .fields = WithTypeMeta({
          MetadataField(std::string(kStandardListMeta)).Proto(1),
          field::Object("spec", E::kAlways, spec,
                        "Spec holds information about the request being evaluated")
              .Required()
              .OpenApiDefault()
              .Proto(2),
          field::Object("status", E::kOmitEmpty, SubjectAccessReviewStatusObject(),
                        "Status is filled in by the server and indicates whether the request is "
                        "allowed or not")
              .OpenApiDefault(),
      })};
  return *d;
}

const ObjectDescription& ResourceRuleObject() {
  static const ObjectDescription d{
      .go_name = "ResourceRule",
      .doc =
          "ResourceRule is the list of actions the subject is allowed to perform on "
          "resources. The list ordering isn't significant, may contain duplicates, and "
          "possibly be incomplete.",
      .fields = {
          field::StringList("verbs", E::kAlways,
                            "Verb is a list of kubernetes resource API verbs, like: get, list, "
                            "watch, create, update, delete, proxy.  \"*\" means all.")
              .Required()
              .ListType("atomic"),
          field::StringList("apiGroups", E::kOmitEmpty,
                            "APIGroups is the name of the APIGroup that contains the resources.  "
                            "\"*\" means all.")
              .ListType("atomic"),
          field::StringList("resources", E::kOmitEmpty,
                            "Resources is a list of resources this rule applies to.  \"*\" means "
                            "all in the specified apiGroups.")
              .ListType("atomic"),
          field::StringList("resourceNames", E::kOmitEmpty,
                            "ResourceNames is an optional white list of names that the rule "
                            "applies to.  An empty set means that everything is allowed.  \"*\" "
                            "means all.")
              .ListType("atomic"),
      }};
  return d;
}

const ObjectDescription& NonResourceRuleObject() {
  static const ObjectDescription d{
      .go_name = "NonResourceRule",
      .doc = "NonResourceRule holds information that describes a rule for the non-resource",
      .fields = {
          field::StringList("verbs", E::kAlways,
                            "Verb is a list of kubernetes non-resource API verbs, like: get, "
                            "post, put, delete, patch, head, options.  \"*\" means all.")
              .Required()
              .ListType("atomic"),
          field::StringList("nonResourceURLs", E::kOmitEmpty,
                            "NonResourceURLs is a set of partial urls that a user should have "
                            "access to.  *s are allowed, but only as the full, final step in the "
                            "path.  \"*\" means all.")
              .ListType("atomic"),
      }};
  return d;
}

const ObjectDescription& SelfSubjectRulesReviewObject() {
  static const ObjectDescription spec{
      .go_name = "SelfSubjectRulesReviewSpec",
      .doc = "SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.",
      .fields = {
          field::String("namespace", E::kOmitEmpty, "Namespace to evaluate rules for. Required.")
              .Proto(1)}};
  static const ObjectDescription status{
      .go_name = "SubjectRulesReviewStatus",
      .doc =
          "SubjectRulesReviewStatus contains the result of a rules check. This check can be "
          "incomplete depending on the set of authorizers the server is configured with and "
          "any errors experienced during evaluation. Because authorization rules are "
          "additive, if a rule appears in a list it's safe to assume the subject has that "
          "permission, even if that list is incomplete.",
      .fields = {
          field::ObjectList("resourceRules", E::kAlways, ResourceRuleObject(),
                            "ResourceRules is the list of actions the subject is allowed to "
                            "perform on resources. The list ordering isn't significant, may "
                            "contain duplicates, and possibly be incomplete.")
              .Required()
              .ListType("atomic"),
          field::ObjectList("nonResourceRules", E::kAlways, NonResourceRuleObject(),
                            "NonResourceRules is the list of actions the subject is allowed to "
                            "perform on non-resources. The list ordering isn't significant, may "
                            "contain duplicates, and possibly be incomplete.")
              .Required()
              .ListType("atomic"),
          field::Bool("incomplete", E::kAlways,
                      "Incomplete is true when the rules returned by this call are incomplete. "
                      "This is most commonly encountered when an authorizer, such as an "
                      "external authorizer, doesn't support rules evaluation.")
              .Required()
              .OpenApiDefault(),
          field::String("evaluationError", E::kOmitEmpty,
                        "EvaluationError can appear in combination with Rules. It indicates an "
                        "error occurred during rule evaluation, such as an authorizer that "
                        "doesn't support rule evaluation, and that ResourceRules and/or "
                        "NonResourceRules may be incomplete."),
      }};
  static const ObjectDescription d{
      .go_name = "SelfSubjectRulesReview",
      .doc =
          "SelfSubjectRulesReview enumerates the set of actions the current user can perform "
          "within a namespace. The returned list of actions may be incomplete depending on "
          "the server's authorization mode, and any errors experienced during the "
          "evaluation. SelfSubjectRulesReview should be used by UIs to show/hide actions, or "
          "to quickly let an end user reason about their permissions. It should NOT Be used "
          "by external systems to drive authorization decisions as this raises confused "
          "deputy, cache lifetime/revocation, and correctness concerns. SubjectAccessReview, "
          "and LocalAccessReview are the correct way to defer authorization decisions to the "
          "API server.",
      .fields = WithTypeMeta({
          MetadataField(std::string(kStandardListMeta)).Proto(1),
          field::Object("spec", E::kAlways, spec,
                        "Spec holds information about the request being evaluated.")
              .Required()
              .OpenApiDefault()
              .Proto(2),
          field::Object("status", E::kOmitEmpty, status,
                        "Status is filled in by the server and indicates the set of actions a "
                        "user can perform.")
              .OpenApiDefault(),
      })};
  return d;
}

const ObjectDescription& SelfSubjectReviewObject() {
  static const ObjectDescription user_info{
      .go_name = "UserInfo",
      .doc =
          "UserInfo holds the information about the user needed to implement the user.Info "
          "interface.",
      .fields = {
          field::String("username", E::kOmitEmpty,
                        "The name that uniquely identifies this user among all active users."),
          field::String("uid", E::kOmitEmpty,
                        "A unique value that identifies this user across time. If this user is "
                        "deleted and another user by the same name is added, they will have "
                        "different UIDs."),
          field::StringList("groups", E::kOmitEmpty, "The names of groups this user is a part of.")
              .ListType("atomic"),
      }};
  static const ObjectDescription status{
      .go_name = "SelfSubjectReviewStatus",
      .doc = "SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user.",
      .fields = {field::Object("userInfo", E::kOmitEmpty, user_info,
                               "User attributes of the user making this request.")
                     .OpenApiDefault()}};
  static const ObjectDescription d{
      .go_name = "SelfSubjectReview",
      .doc =
          "SelfSubjectReview contains the user information that the kube-apiserver has "
          "about the user making this request. When using impersonation, users will receive "
          "the user info of the user being impersonated.  If impersonation or request header "
          "authentication is used, any extra keys will have their case ignored and returned "
          "as lowercase.",
      .fields = WithTypeMeta({
          MetadataField(kStandardObjectMeta).Proto(1),
          field::Object("status", E::kOmitEmpty, status,
                        "Status is filled in by the server with the user attributes.")
              .OpenApiDefault(),
      })};
  return d;
}

KindDescription ReviewKind(std::string_view group, std::string_view kind, std::string_view resource,
                           std::string_view singular, const ObjectDescription& object,
                           bool namespaced = false) {
  KindDescription k;
  k.group = group;
  k.versions = {"v1"};
  k.kind = kind;
  k.resource = resource;
  k.singular = singular;
  k.namespaced = namespaced;
  k.stored = false;
  k.verbs = {"create"};
  k.object = &object;
  return k;
}

}  // namespace

const KindDescription& SelfSubjectAccessReviewKind() {
  static const KindDescription kind = [] {
    KindDescription k = ReviewKind(
        "authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews",
        "selfsubjectaccessreview",
        AccessReviewObject("SelfSubjectAccessReview",
                           "SelfSubjectAccessReview checks whether or the current user can "
                           "perform an action.  Not filling in a spec.namespace means \"in all "
                           "namespaces\".  Self is a special case, because users should always "
                           "be able to check whether they can perform an action",
                           SelfSubjectAccessReviewSpecObject()));
    k.validation = {.create = ValidateSelfSubjectAccessReview};
    return k;
  }();
  return kind;
}

const KindDescription& SubjectAccessReviewKind() {
  static const KindDescription kind = [] {
    KindDescription k = ReviewKind(
        "authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews",
        "subjectaccessreview",
        AccessReviewObject("SubjectAccessReview",
                           "SubjectAccessReview checks whether or not a user or group can "
                           "perform an action.",
                           SubjectAccessReviewSpecObject()));
    k.validation = {.create = ValidateSubjectAccessReview};
    return k;
  }();
  return kind;
}

const KindDescription& LocalSubjectAccessReviewKind() {
  static const KindDescription kind = [] {
    KindDescription k = ReviewKind(
        "authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews",
        "localsubjectaccessreview",
        AccessReviewObject("LocalSubjectAccessReview",
                           "LocalSubjectAccessReview checks whether or not a user or group can "
                           "perform an action in a given namespace. Having a namespace scoped "
                           "resource makes it much easier to grant namespace scoped policy that "
                           "includes permissions checking.",
                           SubjectAccessReviewSpecObject()),
        true);
    k.validation = {.create = ValidateLocalSubjectAccessReview};
    return k;
  }();
  return kind;
}

const KindDescription& SelfSubjectRulesReviewKind() {
  static const KindDescription kind =
      ReviewKind("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews",
                 "selfsubjectrulesreview", SelfSubjectRulesReviewObject());
  return kind;
}

const KindDescription& SelfSubjectReviewKind() {
  static const KindDescription kind =
      ReviewKind("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews",
                 "selfsubjectreview", SelfSubjectReviewObject());
  return kind;
}

}  // namespace tenure::api::internal
