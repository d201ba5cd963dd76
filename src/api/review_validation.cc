// kube-apiserver's validation of the access reviews (pkg/apis/authorization/validation): exactly
// one of resourceAttributes and nonResourceAttributes, a subject for SubjectAccessReview, and
// metadata that says nothing (but, for the local review, the namespace its attributes name); and
// a TokenRequest's expiry (pkg/apis/authentication/validation).
#include <algorithm>
#include <initializer_list>

#include "api/canonical_json.h"
#include "api/kind_validation.h"
#include "api/object_meta_validation.h"

namespace tenure::api::internal {
namespace {

using nlohmann::json;

// Go's %#v of a NonResourceAttributes pointer, as kube prints it (nil: null).
std::string GoNonResourceAttributes(const json* attributes) {
  if (attributes == nullptr) return "null";
  return "authorization.NonResourceAttributes{Path:" + GoQuote(StringAt(*attributes, "path")) +
         ", Verb:" + GoQuote(StringAt(*attributes, "verb")) + "}";
}

void ValidateAttributes(const json& spec, FieldErrors& errs) {
  const json* resource = Child(spec, "resourceAttributes");
  const json* non_resource = Child(spec, "nonResourceAttributes");
  if (resource != nullptr && non_resource != nullptr) {
    errs.push_back(InvalidRaw("spec.nonResourceAttributes", GoNonResourceAttributes(non_resource),
                              "cannot be specified in combination with resourceAttributes"));
  }
  if (resource == nullptr && non_resource == nullptr) {
    errs.push_back(
        InvalidRaw("spec.resourceAttributes", "null",
                   "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
}

void ValidateSubject(const json& spec, FieldErrors& errs) {
  const std::string_view user = StringAt(spec, "user");
  if (user.empty() && StringList(spec, "groups").empty()) {
    errs.push_back(Invalid("spec.user", user, "at least one of user or group must be specified"));
  }
}

// Whether metadata holds anything but the fields in `allowed` (managedFields never counts).
bool MetadataSaysMore(const json& object, std::initializer_list<std::string_view> allowed) {
  const json& meta = Sub(object, "metadata");
  if (!meta.is_object()) return false;
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    if (it.key() == "managedFields") continue;
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    return true;
  }
  return false;
}

}  // namespace

void ValidateSelfSubjectAccessReview(const json& object, FieldErrors& errs) {
  ValidateAttributes(Sub(object, "spec"), errs);
  if (MetadataSaysMore(object, {})) {
    errs.push_back(InvalidRaw("metadata", Sub(object, "metadata").dump(), "must be empty"));
  }
}

void ValidateSubjectAccessReview(const json& object, FieldErrors& errs) {
  const json& spec = Sub(object, "spec");
  ValidateAttributes(spec, errs);
  ValidateSubject(spec, errs);
  if (MetadataSaysMore(object, {})) {
    errs.push_back(InvalidRaw("metadata", Sub(object, "metadata").dump(), "must be empty"));
  }
}

void ValidateLocalSubjectAccessReview(const json& object, FieldErrors& errs) {
  const json& spec = Sub(object, "spec");
  ValidateAttributes(spec, errs);
  ValidateSubject(spec, errs);
  if (MetadataSaysMore(object, {"namespace"})) {
    errs.push_back(InvalidRaw("metadata", Sub(object, "metadata").dump(),
                              "must be empty except for namespace"));
  }
  const std::string_view ns = StringAt(Sub(object, "metadata"), "namespace");
  if (const json* resource = Child(spec, "resourceAttributes");
      resource != nullptr && StringAt(*resource, "namespace") != ns) {
    errs.push_back(Invalid("spec.resourceAttributes.namespace", StringAt(*resource, "namespace"),
                           "must match metadata.namespace"));
  }
  if (const json* non_resource = Child(spec, "nonResourceAttributes"); non_resource != nullptr) {
    errs.push_back(InvalidRaw("spec.nonResourceAttributes", GoNonResourceAttributes(non_resource),
                              "disallowed on this kind of request"));
  }
}

void ValidateTokenRequest(const json& object, FieldErrors& errs) {
  constexpr int64_t kMinSeconds = 10 * 60, kMaxSeconds = int64_t{1} << 32;
  const json* seconds = Child(Sub(object, "spec"), "expirationSeconds");
  if (seconds == nullptr || !seconds->is_number_integer()) return;
  const int64_t value = seconds->get<int64_t>();
  if (value < kMinSeconds) {
    errs.push_back(Invalid("spec.expirationSeconds", value,
                           "may not specify a duration less than 10 minutes"));
  } else if (value > kMaxSeconds) {
    errs.push_back(Invalid("spec.expirationSeconds", value,
                           "may not specify a duration larger than 2^32 seconds"));
  }
}

}  // namespace tenure::api::internal
