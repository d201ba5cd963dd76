// Internal: kube-apiserver's generic ObjectMeta validation and the name rules of its kinds, for
// the kinds' validation hooks (kind_validation.h) and ValidateCreate / ValidateUpdate.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/validation.h"

namespace tenure::api::internal {

// A name rule: the problems of `value` as a name (or, with `prefix`, as a generateName).
using NameFn = std::vector<std::string> (*)(std::string_view value, bool prefix);
std::vector<std::string> NameIsDNSSubdomain(std::string_view name, bool prefix);
std::vector<std::string> NameIsDNSLabel(std::string_view name, bool prefix);
std::vector<std::string> LeaseCandidateName(std::string_view name, bool prefix);
std::vector<std::string> PathSegmentName(std::string_view name, bool prefix);

// The string elements of the list `key` of `object`.
std::vector<std::string> StringList(const nlohmann::json& object, const char* key);
// "kubernetes", "orphan", "foregroundDeletion".
bool IsStandardFinalizer(std::string_view finalizer);

// metadata.labels: each key a qualified name, each value a label value (also the library's
// check of a lock's labels before it writes any).
void ValidateLabels(const nlohmann::json& meta, FieldErrors& errs);
// apimachinery's ValidateObjectMeta of a canonical `meta` with the kind's name rule.
void ValidateObjectMeta(const nlohmann::json& meta, bool namespaced, NameFn name_fn,
                        FieldErrors& errs);
// pkg/apis/core/validation.ValidateObjectMeta: adds the legacy finalizer-name rule.
void ValidateCoreObjectMeta(const nlohmann::json& meta, bool namespaced, NameFn name_fn,
                            FieldErrors& errs);
void ValidateObjectMetaUpdate(const nlohmann::json& meta, const nlohmann::json& old_meta,
                              FieldErrors& errs);

}  // namespace tenure::api::internal
