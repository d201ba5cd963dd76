// kube-apiserver's generic ObjectMeta validation and the name rules the kinds choose from.
#include "api/object_meta_validation.h"

#include <algorithm>
#include <set>

#include "api/canonical_json.h"
#include "api/field_manager_name.h"

namespace tenure::api::internal {
namespace {

using nlohmann::json;

constexpr int64_t kTotalAnnotationSizeLimit = 256 * 1024;

std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

}  // namespace

void ValidateLabels(const json& meta, FieldErrors& errs) {
  const json* labels = Child(meta, "labels");
  if (labels == nullptr || !labels->is_object()) return;
  for (auto it = labels->begin(); it != labels->end(); ++it) {
    for (auto& msg : IsQualifiedName(it.key())) {
      errs.push_back(Invalid("metadata.labels", it.key(), msg));
    }
    const std::string_view value =
        it->is_string() ? std::string_view(it->get_ref<const std::string&>()) : "";
    for (auto& msg : IsValidLabelValue(value)) {
      errs.push_back(Invalid("metadata.labels", value, msg));
    }
  }
}

namespace {

void ValidateAnnotations(const json& meta, FieldErrors& errs) {
  const json* annotations = Child(meta, "annotations");
  if (annotations == nullptr || !annotations->is_object()) return;
  int64_t total = 0;
  for (auto it = annotations->begin(); it != annotations->end(); ++it) {
    std::string lower = it.key();
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (auto& msg : IsQualifiedName(lower)) {
      errs.push_back(Invalid("metadata.annotations", it.key(), msg));
    }
    total += static_cast<int64_t>(it.key().size());
    if (it->is_string()) total += static_cast<int64_t>(it->get_ref<const std::string&>().size());
  }
  if (total > kTotalAnnotationSizeLimit) {
    errs.push_back(TooLong("metadata.annotations", kTotalAnnotationSizeLimit));
  }
}

void ValidateOwnerReferences(const json& meta, FieldErrors& errs) {
  const json* refs = Child(meta, "ownerReferences");
  if (refs == nullptr || !refs->is_array()) return;
  const std::string path = "metadata.ownerReferences";
  std::string first_controller;
  for (const auto& ref : *refs) {
    const std::string_view api_version = StringAt(ref, "apiVersion");
    const std::string_view kind = StringAt(ref, "kind");
    const std::string_view name = StringAt(ref, "name");
    const std::string_view uid = StringAt(ref, "uid");
    // schema.ParseGroupVersion: more than one '/' is an error and leaves the version empty.
    std::string_view version;
    const auto slashes = std::count(api_version.begin(), api_version.end(), '/');
    if (api_version != "/" && slashes == 0) version = api_version;
    if (api_version != "/" && slashes == 1) version = api_version.substr(api_version.find('/') + 1);
    if (version.empty()) {
      errs.push_back(Invalid(path + ".apiVersion", api_version, "version must not be empty"));
    }
    if (kind.empty()) errs.push_back(Invalid(path + ".kind", kind, "must not be empty"));
    if (name.empty()) errs.push_back(Invalid(path + ".name", name, "must not be empty"));
    if (uid.empty()) errs.push_back(Invalid(path + ".uid", uid, "must not be empty"));
    if (api_version == "v1" && kind == "Event") {
      errs.push_back(
          InvalidRaw(path, ref.dump(), "/v1, Kind=Event is disallowed from being an owner"));
    }
    const json* controller = Child(ref, "controller");
    if (controller != nullptr && controller->is_boolean() && controller->get<bool>()) {
      const std::string current = std::string(kind) + "/" + std::string(name);
      if (!first_controller.empty()) {
        errs.push_back(InvalidRaw(path, refs->dump(),
                                  "Only one reference can have Controller set to true. Found "
                                  "\"true\" in references for " +
                                      first_controller + " and " + current));
      } else {
        first_controller = current;
      }
    }
  }
}

void ValidateFinalizers(const std::vector<std::string>& finalizers, const std::string& path,
                        FieldErrors& errs) {
  bool orphan = false, foreground = false;
  for (const auto& f : finalizers) {
    for (auto& msg : IsQualifiedName(f)) errs.push_back(Invalid(path, f, msg));
    if (f == "orphan") orphan = true;
    if (f == "foregroundDeletion") foreground = true;
  }
  if (orphan && foreground) {
    errs.push_back(InvalidRaw(path, GoStringSlice(finalizers),
                              "finalizer orphan and foregroundDeletion cannot be both set"));
  }
}

// The part of ObjectMeta validation after the name (validateObjectMetaAccessorWithOptsCommon).
// apimachinery's ValidateManagedFields: each entry's operation, fieldsType, manager name and
// subresource.
void ValidateManagedFields(const json& meta, FieldErrors& errs) {
  const json* entries = Child(meta, "managedFields");
  if (entries == nullptr || !entries->is_array()) return;
  for (size_t i = 0; i < entries->size(); ++i) {
    const json& e = (*entries)[i];
    if (!e.is_object()) continue;
    const std::string path = "metadata.managedFields[" + std::to_string(i) + "]";
    const std::string_view operation = StringAt(e, "operation");
    if (operation != "Apply" && operation != "Update") {
      errs.push_back(Invalid(path + ".operation", operation, "must be `Apply` or `Update`"));
    }
    const std::string_view type = StringAt(e, "fieldsType");
    if (!type.empty() && type != "FieldsV1") {
      errs.push_back(Invalid(path + ".fieldsType", type, "must be `FieldsV1`"));
    }
    for (FieldError& err : ValidateFieldManager(StringAt(e, "manager"), path + ".manager")) {
      errs.push_back(std::move(err));
    }
    if (StringAt(e, "subresource").size() > 256) {
      errs.push_back(TooLong(path + ".subresource", 256));
    }
  }
}

void ValidateObjectMetaCommon(const json& meta, bool namespaced, FieldErrors& errs) {
  const std::string_view ns = StringAt(meta, "namespace");
  if (namespaced) {
    if (ns.empty()) {
      errs.push_back(Required("metadata.namespace"));
    } else {
      for (auto& msg : NameIsDNSLabel(ns, false)) {
        errs.push_back(Invalid("metadata.namespace", ns, msg));
      }
    }
  } else if (!ns.empty()) {
    errs.push_back(Forbidden("metadata.namespace", "not allowed on this type"));
  }
  const json* generation = Child(meta, "generation");
  if (generation != nullptr && generation->is_number_integer() && generation->get<int64_t>() < 0) {
    errs.push_back(Invalid("metadata.generation", generation->get<int64_t>(),
                           "must be greater than or equal to 0"));
  }
  ValidateLabels(meta, errs);
  ValidateAnnotations(meta, errs);
  ValidateOwnerReferences(meta, errs);
  ValidateFinalizers(StringList(meta, "finalizers"), "metadata.finalizers", errs);
  ValidateManagedFields(meta, errs);
}

void ValidateImmutableString(const json& meta, const json& old_meta, const char* key,
                             const std::string& path, FieldErrors& errs) {
  const std::string_view now = StringAt(meta, key);
  if (now != StringAt(old_meta, key)) errs.push_back(Invalid(path, now, "field is immutable"));
}

}  // namespace

std::vector<std::string> NameIsDNSSubdomain(std::string_view name, bool prefix) {
  if (prefix) return IsDNS1123Subdomain(MaskTrailingDash(name));
  return IsDNS1123Subdomain(name);
}

std::vector<std::string> NameIsDNSLabel(std::string_view name, bool prefix) {
  if (prefix) return IsDNS1123Label(MaskTrailingDash(name));
  return IsDNS1123Label(name);
}

std::vector<std::string> LeaseCandidateName(std::string_view name, bool) {
  return IsConfigMapKey(name);
}

std::vector<std::string> PathSegmentName(std::string_view name, bool prefix) {
  if (!prefix) return IsValidPathSegmentName(name);
  std::vector<std::string> errs;
  if (name.find('/') != std::string_view::npos) errs.emplace_back("may not contain '/'");
  if (name.find('%') != std::string_view::npos) errs.emplace_back("may not contain '%'");
  return errs;
}

std::vector<std::string> StringList(const json& object, const char* key) {
  std::vector<std::string> out;
  const json* list = Child(object, key);
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& e : *list) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

bool IsStandardFinalizer(std::string_view f) {
  return f == "kubernetes" || f == "orphan" || f == "foregroundDeletion";
}

void ValidateObjectMeta(const json& meta, bool namespaced, NameFn name_fn, FieldErrors& errs) {
  const std::string_view generate_name = StringAt(meta, "generateName");
  if (!generate_name.empty()) {
    for (auto& msg : name_fn(generate_name, true)) {
      errs.push_back(Invalid("metadata.generateName", generate_name, msg));
    }
  }
  const std::string_view name = StringAt(meta, "name");
  if (name.empty()) {
    errs.push_back(Required("metadata.name", "name or generateName is required"));
  } else {
    for (auto& msg : name_fn(name, false)) errs.push_back(Invalid("metadata.name", name, msg));
  }
  ValidateObjectMetaCommon(meta, namespaced, errs);
}

void ValidateCoreObjectMeta(const json& meta, bool namespaced, NameFn name_fn, FieldErrors& errs) {
  ValidateObjectMeta(meta, namespaced, name_fn, errs);
  const auto finalizers = StringList(meta, "finalizers");
  for (size_t i = 0; i < finalizers.size(); ++i) {
    if (finalizers[i].find('/') == std::string::npos && !IsStandardFinalizer(finalizers[i])) {
      errs.push_back(
          Invalid("metadata.finalizers[" + std::to_string(i) + "]", finalizers[i],
                  "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
}

void ValidateObjectMetaUpdate(const json& meta, const json& old_meta, FieldErrors& errs) {
  if (Child(old_meta, "deletionTimestamp") != nullptr) {
    const auto now = StringList(meta, "finalizers");
    const auto before = StringList(old_meta, "finalizers");
    std::set<std::string> extra(now.begin(), now.end());
    for (const auto& f : before) extra.erase(f);
    if (!extra.empty()) {
      errs.push_back(Forbidden(
          "metadata.finalizers",
          "no new finalizers can be added if the object is being deleted, found new finalizers " +
              GoStringSlice(std::vector<std::string>(extra.begin(), extra.end()))));
    }
  }
  const json* gen = Child(meta, "generation");
  const json* old_gen = Child(old_meta, "generation");
  const int64_t g = gen != nullptr && gen->is_number_integer() ? gen->get<int64_t>() : 0;
  const int64_t og =
      old_gen != nullptr && old_gen->is_number_integer() ? old_gen->get<int64_t>() : 0;
  if (g < og) errs.push_back(Invalid("metadata.generation", g, "must not be decremented"));
  ValidateImmutableString(meta, old_meta, "name", "metadata.name", errs);
  ValidateImmutableString(meta, old_meta, "namespace", "metadata.namespace", errs);
  ValidateImmutableString(meta, old_meta, "uid", "metadata.uid", errs);
  ValidateLabels(meta, errs);
  ValidateAnnotations(meta, errs);
  ValidateOwnerReferences(meta, errs);
  ValidateFinalizers(StringList(meta, "finalizers"), "metadata.finalizers", errs);
  ValidateManagedFields(meta, errs);
}

}  // namespace tenure::api::internal
