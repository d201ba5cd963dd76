// Internal: the validation hooks of tenure's kinds (their KindValidation in description.h):
// kube-apiserver's strategy Validate / ValidateUpdate of each kind, on canonical objects.
#pragma once

#include <nlohmann/json.hpp>

#include "api/validation.h"

namespace tenure::api::internal {

void ValidateLease(const nlohmann::json& object, FieldErrors& errs);
// Reads only the old object's metadata.
void ValidateLeaseUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                         FieldErrors& errs);
void ValidateLeaseCandidate(const nlohmann::json& object, FieldErrors& errs);
void ValidateLeaseCandidateUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                                  FieldErrors& errs);
void ValidateConfigMap(const nlohmann::json& object, FieldErrors& errs);
void ValidateConfigMapUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                             FieldErrors& errs);
void ValidateNamespace(const nlohmann::json& object, FieldErrors& errs);
void ValidateNamespaceUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                             FieldErrors& errs);
void ValidateEvent(const nlohmann::json& object, FieldErrors& errs);
// kube's legacyValidateEvent, naming the reporting component as the request's API does.
void ValidateEventAs(const nlohmann::json& object, const char* reporting_field, FieldErrors& errs);
void ValidateEventUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                         FieldErrors& errs);
// rbac_validation.cc
void ValidateRole(const nlohmann::json& object, FieldErrors& errs);
void ValidateRoleUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                        FieldErrors& errs);
void ValidateClusterRole(const nlohmann::json& object, FieldErrors& errs);
void ValidateClusterRoleUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                               FieldErrors& errs);
void ValidateRoleBinding(const nlohmann::json& object, FieldErrors& errs);
void ValidateRoleBindingUpdate(const nlohmann::json& object, const nlohmann::json& old_object,
                               FieldErrors& errs);
void ValidateClusterRoleBinding(const nlohmann::json& object, FieldErrors& errs);
void ValidateClusterRoleBindingUpdate(const nlohmann::json& object,
                                      const nlohmann::json& old_object, FieldErrors& errs);
// review_validation.cc
// TokenRequest: spec.expirationSeconds within [10 minutes, 2^32 seconds].
void ValidateTokenRequest(const nlohmann::json& object, FieldErrors& errs);
void ValidateSelfSubjectAccessReview(const nlohmann::json& object, FieldErrors& errs);
void ValidateSubjectAccessReview(const nlohmann::json& object, FieldErrors& errs);
void ValidateLocalSubjectAccessReview(const nlohmann::json& object, FieldErrors& errs);

}  // namespace tenure::api::internal
