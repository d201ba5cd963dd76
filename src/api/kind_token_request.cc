// TokenRequest (authentication.k8s.io/v1): the body of a ServiceAccount's token subresource
// (POST .../serviceaccounts/<name>/token, `kubectl create token`), described like a kind but not
// served as a resource of its own. Protobuf numbers from its generated.proto.
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"

namespace tenure::api::internal {
namespace {

using E = Emit;

const ObjectDescription& BoundObjectReferenceObject() {
  static const ObjectDescription d{
      .go_name = "BoundObjectReference",
      .doc = "BoundObjectReference is a reference to an object that a token is bound to.",
      .fields = {
          field::String("kind", E::kOmitEmpty,
                        "Kind of the referent. Valid kinds are 'Pod' and 'Secret'.")
              .Proto(1),
          field::String("apiVersion", E::kOmitEmpty, "API version of the referent.").Proto(2),
          field::String("name", E::kOmitEmpty, "Name of the referent.").Proto(3),
          field::String("uid", E::kOmitEmpty, "UID of the referent.", "types.UID").Proto(4),
      }};
  return d;
}

const ObjectDescription& TokenRequestSpecObject() {
  static const ObjectDescription d{
      .go_name = "TokenRequestSpec",
      .doc = "TokenRequestSpec contains client provided parameters of a token request.",
      .fields = {
          field::StringList(
              "audiences", E::kAlways,
              "Audiences are the intendend audiences of the token. A recipient of a token must "
              "identify themself with an identifier in the list of audiences of the token, and "
              "otherwise should reject the token. A token issued for multiple audiences may be "
              "used to authenticate against any of the audiences listed but implies a high "
              "degree of trust between the target audiences.")
              .Required()
              .ListType("atomic")
              .Proto(1),
          field::Int64("expirationSeconds", E::kOmitEmpty,
                       "ExpirationSeconds is the requested duration of validity of the request. "
                       "The token issuer may return a token with a different validity duration "
                       "so a client needs to check the 'expiration' field in a response.")
              .Proto(4),
          field::Object("boundObjectRef", E::kOmitEmpty, BoundObjectReferenceObject(),
                        "BoundObjectRef is a reference to an object that the token will be bound "
                        "to. The token will only be valid for as long as the bound object "
                        "exists. NOTE: The API server's TokenReview endpoint will validate the "
                        "BoundObjectRef, but other audiences may not. Keep ExpirationSeconds "
                        "small if you want prompt revocation.")
              .Proto(3),
      }};
  return d;
}

const ObjectDescription& TokenRequestStatusObject() {
  static const ObjectDescription d{
      .go_name = "TokenRequestStatus",
      .doc = "TokenRequestStatus is the result of a token request.",
      .fields = {
          field::String("token", E::kAlways, "Token is the opaque bearer token.")
              .Required()
              .OpenApiDefault(),
          field::Time("expirationTimestamp", E::kAlways,
                      "ExpirationTimestamp is the time of expiration of the returned token.")
              .Required(),
      }};
  return d;
}

const ObjectDescription& TokenRequestObject() {
  static const ObjectDescription d{
      .go_name = "TokenRequest",
      .doc = "TokenRequest requests a token for a given service account.",
      .fields = WithTypeMeta({
          MetadataField(kStandardObjectMeta).Proto(1),
          field::Object("spec", E::kAlways, TokenRequestSpecObject(),
                        "Spec holds information about the request being evaluated")
              .Required()
              .OpenApiDefault()
              .Proto(2),
          field::Object("status", E::kOmitEmpty, TokenRequestStatusObject(),
                        "Status is filled in by the server and indicates whether the token can "
                        "be authenticated.")
              .OpenApiDefault(),
      })};
  return d;
}

}  // namespace

const KindDescription& TokenRequestKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "authentication.k8s.io";
    k.versions = {"v1"};
    k.kind = "TokenRequest";
    k.resource = "serviceaccounts/token";
    k.singular = "";
    k.namespaced = true;
    k.stored = false;
    k.verbs = {"create"};
    k.object = &TokenRequestObject();
    k.validation = {.create = ValidateTokenRequest};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
