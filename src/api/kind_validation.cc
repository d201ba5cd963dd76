// ValidateCreate / ValidateUpdate: kube-apiserver's validation for each kind (strategy
// validation followed by the generic object-meta checks of rest.BeforeCreate/BeforeUpdate).
#include <algorithm>
#include <set>

#include "api/kinds.h"
#include "api/schema.h"
#include "api/validation.h"

namespace tenure::api {
namespace {

using internal::Child;
using internal::StringAt;
using nlohmann::json;

using NameFn = std::vector<std::string> (*)(std::string_view value, bool prefix);

constexpr int64_t kTotalAnnotationSizeLimit = 256 * 1024;
constexpr int64_t kMaxConfigMapSize = 1024 * 1024;
constexpr std::string_view kOldestEmulationVersion = "OldestEmulationVersion";

const json& Sub(const json& object, const char* key) {
  const json* v = Child(object, key);
  return v != nullptr ? *v : internal::EmptyObject();
}

std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

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

bool IsStandardFinalizer(std::string_view f) {
  return f == "kubernetes" || f == "orphan" || f == "foregroundDeletion";
}

// The part of ObjectMeta validation after the name (validateObjectMetaAccessorWithOptsCommon).
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

// pkg/apis/core/validation.ValidateObjectMeta: adds the legacy finalizer-name rule.
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

void ValidateImmutableString(const json& meta, const json& old_meta, const char* key,
                             const std::string& path, FieldErrors& errs) {
  const std::string_view now = StringAt(meta, key);
  if (now != StringAt(old_meta, key)) errs.push_back(Invalid(path, now, "field is immutable"));
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
}

// ---- coordination.k8s.io ----

// kube-apiserver passes "<spec>.strategy" and appends "strategy" again: the reported field is
// "spec.strategy.strategy". Kept as is for identical messages.
void ValidateCoordinatedLeaseStrategy(std::string_view strategy, const std::string& path,
                                      FieldErrors& errs) {
  const std::string field = path + ".strategy";
  if (strategy.find('/') == std::string_view::npos) {
    if (strategy != kOldestEmulationVersion) {
      errs.push_back(NotSupported(field, strategy, {kOldestEmulationVersion}));
    }
    return;
  }
  for (auto& msg : IsQualifiedName(strategy)) errs.push_back(Invalid(field, strategy, msg));
}

void ValidateLeaseSpec(const json& spec, FieldErrors& errs) {
  const json* duration = Child(spec, "leaseDurationSeconds");
  if (duration != nullptr && duration->is_number_integer() && duration->get<int64_t>() <= 0) {
    errs.push_back(
        Invalid("spec.leaseDurationSeconds", duration->get<int64_t>(), "must be greater than 0"));
  }
  const json* transitions = Child(spec, "leaseTransitions");
  if (transitions != nullptr && transitions->is_number_integer() &&
      transitions->get<int64_t>() < 0) {
    errs.push_back(Invalid("spec.leaseTransitions", transitions->get<int64_t>(),
                           "must be greater than or equal to 0"));
  }
  const json* strategy = Child(spec, "strategy");
  if (strategy != nullptr && strategy->is_string()) {
    ValidateCoordinatedLeaseStrategy(strategy->get_ref<const std::string&>(), "spec.strategy",
                                     errs);
  }
  const std::string_view preferred = StringAt(spec, "preferredHolder");
  if (!preferred.empty() && StringAt(spec, "strategy").empty()) {
    errs.push_back(
        Forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
  }
}

void ValidateLeaseCandidateSpec(const json& spec, FieldErrors& errs) {
  if (StringAt(spec, "leaseName").empty()) errs.push_back(Required("spec.leaseName"));
  const std::string_view emulation = StringAt(spec, "emulationVersion");
  const std::string_view binary = StringAt(spec, "binaryVersion");
  SemVer ev, bv;
  if (!emulation.empty()) {
    if (auto v = ParseSemVer(emulation)) {
      ev = *v;
    } else {
      errs.push_back(
          Invalid("spec.emulationVersion", emulation, "must be a valid semantic version"));
    }
  }
  if (binary.empty()) {
    errs.push_back(Required("spec.binaryVersion"));
  } else if (auto v = ParseSemVer(binary)) {
    bv = *v;
  } else {
    errs.push_back(Invalid("spec.binaryVersion", binary, "must be a valid semantic version"));
  }
  if (!binary.empty() && !emulation.empty() && bv.Compare(ev) < 0) {
    errs.push_back(Invalid("spec.binaryVersion", binary,
                           "must be greater than or equal to `emulationVersion`"));
  }
  const std::string_view strategy = StringAt(spec, "strategy");
  if (strategy.empty()) {
    errs.push_back(Required("spec.strategy"));
  } else {
    if (strategy == kOldestEmulationVersion && ev.Compare(SemVer{}) == 0) {
      errs.push_back(Required("spec.emulationVersion",
                              "must be specified when `strategy` is 'OldestEmulationVersion'"));
    }
    ValidateCoordinatedLeaseStrategy(strategy, "spec.strategy", errs);
  }
}

// ---- core/v1 ----

int64_t DecodedBase64Size(std::string_view s) {
  if (s.empty()) return 0;
  int64_t n = static_cast<int64_t>(s.size()) / 4 * 3;
  if (s.back() == '=') --n;
  if (s.size() >= 2 && s[s.size() - 2] == '=') --n;
  return n;
}

void ValidateConfigMap(const json& object, FieldErrors& errs) {
  ValidateCoreObjectMeta(Sub(object, "metadata"), true, NameIsDNSSubdomain, errs);
  const json& data = Sub(object, "data");
  const json& binary = Sub(object, "binaryData");
  int64_t total = 0;
  for (auto it = data.begin(); it != data.end(); ++it) {
    const std::string field = "data[" + it.key() + "]";
    for (auto& msg : IsConfigMapKey(it.key())) errs.push_back(Invalid(field, it.key(), msg));
    if (binary.contains(it.key())) {
      errs.push_back(Invalid(field, it.key(), "duplicate of key present in binaryData"));
    }
    if (it->is_string()) total += static_cast<int64_t>(it->get_ref<const std::string&>().size());
  }
  for (auto it = binary.begin(); it != binary.end(); ++it) {
    const std::string field = "binaryData[" + it.key() + "]";
    for (auto& msg : IsConfigMapKey(it.key())) errs.push_back(Invalid(field, it.key(), msg));
    if (it->is_string()) total += DecodedBase64Size(it->get_ref<const std::string&>());
  }
  if (total > kMaxConfigMapSize) errs.push_back(TooLong("", kMaxConfigMapSize));
}

void ValidateNamespace(const json& object, FieldErrors& errs) {
  ValidateCoreObjectMeta(Sub(object, "metadata"), false, NameIsDNSLabel, errs);
  for (const auto& f : StringList(Sub(object, "spec"), "finalizers")) {
    for (auto& msg : IsQualifiedName(f)) errs.push_back(Invalid("spec.finalizers", f, msg));
    if (f.find('/') == std::string::npos && !IsStandardFinalizer(f)) {
      errs.push_back(
          Invalid("spec.finalizers", f,
                  "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
}

// legacyValidateEvent: the only strategy validation of core/v1 Events.
void ValidateEvent(const json& object, FieldErrors& errs) {
  const json& meta = Sub(object, "metadata");
  const std::string_view ns = StringAt(meta, "namespace");
  const json& involved = Sub(object, "involvedObject");
  const std::string_view involved_ns = StringAt(involved, "namespace");
  if (Child(object, "eventTime") == nullptr) {
    if (involved_ns.empty()) {
      if (!ns.empty() && ns != "default") {
        errs.push_back(
            Invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"));
      }
    } else if (ns != involved_ns) {
      errs.push_back(
          Invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"));
    }
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system") {
      errs.push_back(
          Invalid("involvedObject.namespace", involved_ns, "does not match event.namespace"));
    }
    const std::string_view controller = StringAt(object, "reportingComponent");
    if (controller.empty()) errs.push_back(Required("reportingComponent"));
    for (auto& msg : IsQualifiedName(controller)) {
      errs.push_back(Invalid("reportingComponent", controller, msg));
    }
    const std::string_view instance = StringAt(object, "reportingInstance");
    if (instance.empty()) errs.push_back(Required("reportingInstance"));
    if (instance.size() > 128) {
      errs.push_back(Invalid("reportingInstance", "", "can have at most 128 characters"));
    }
    const std::string_view action = StringAt(object, "action");
    if (action.empty()) errs.push_back(Required("action"));
    if (action.size() > 128) {
      errs.push_back(Invalid("action", "", "can have at most 128 characters"));
    }
    const std::string_view reason = StringAt(object, "reason");
    if (reason.empty()) errs.push_back(Required("reason"));
    if (reason.size() > 128) {
      errs.push_back(Invalid("reason", "", "can have at most 128 characters"));
    }
    if (StringAt(object, "message").size() > 1024) {
      errs.push_back(Invalid("message", "", "can have at most 1024 characters"));
    }
  }
  for (auto& msg : IsDNS1123Subdomain(ns)) errs.push_back(Invalid("namespace", ns, msg));
}

void ValidateKind(const KindInfo& kind, const json& object, FieldErrors& errs) {
  const json& meta = Sub(object, "metadata");
  if (kind.kind == "Lease") {
    ValidateObjectMeta(meta, true, NameIsDNSSubdomain, errs);
    ValidateLeaseSpec(Sub(object, "spec"), errs);
  } else if (kind.kind == "LeaseCandidate") {
    ValidateObjectMeta(meta, true, LeaseCandidateName, errs);
    ValidateLeaseCandidateSpec(Sub(object, "spec"), errs);
  } else if (kind.kind == "ConfigMap") {
    ValidateConfigMap(object, errs);
  } else if (kind.kind == "Namespace") {
    ValidateNamespace(object, errs);
  } else if (kind.kind == "Event") {
    ValidateEvent(object, errs);
  }
}

void ValidateKindUpdate(const KindInfo& kind, const json& object, const json& old_object,
                        FieldErrors& errs) {
  const json& meta = Sub(object, "metadata");
  const json& old_meta = Sub(old_object, "metadata");
  if (kind.kind == "Lease") {
    ValidateObjectMetaUpdate(meta, old_meta, errs);
    ValidateLeaseSpec(Sub(object, "spec"), errs);
  } else if (kind.kind == "LeaseCandidate") {
    ValidateObjectMetaUpdate(meta, old_meta, errs);
    ValidateLeaseCandidateSpec(Sub(object, "spec"), errs);
    const std::string_view lease_name = StringAt(Sub(object, "spec"), "leaseName");
    if (lease_name != StringAt(Sub(old_object, "spec"), "leaseName")) {
      errs.push_back(Invalid("spec.leaseName", lease_name, "field is immutable"));
    }
  } else if (kind.kind == "ConfigMap") {
    ValidateObjectMetaUpdate(meta, old_meta, errs);
    const json* old_immutable = Child(old_object, "immutable");
    if (old_immutable != nullptr && old_immutable->is_boolean() && old_immutable->get<bool>()) {
      const json* immutable = Child(object, "immutable");
      const char* detail = "field is immutable when `immutable` is set";
      if (immutable == nullptr || !immutable->is_boolean() || !immutable->get<bool>()) {
        errs.push_back(Forbidden("immutable", detail));
      }
      if (Sub(object, "data") != Sub(old_object, "data")) {
        errs.push_back(Forbidden("data", detail));
      }
      if (Sub(object, "binaryData") != Sub(old_object, "binaryData")) {
        errs.push_back(Forbidden("binaryData", detail));
      }
    }
    ValidateConfigMap(object, errs);
  } else if (kind.kind == "Namespace") {
    ValidateObjectMetaUpdate(meta, old_meta, errs);
  } else if (kind.kind == "Event") {
    ValidateEvent(object, errs);
  }
}

}  // namespace

Status ValidateCreate(const KindInfo& kind, const json& object) {
  FieldErrors errs;
  ValidateKind(kind, object, errs);
  // rest.BeforeCreate: the generic object-meta checks run only when the strategy found none.
  if (errs.empty())
    ValidateObjectMeta(Sub(object, "metadata"), kind.namespaced, PathSegmentName, errs);
  return InvalidStatus(kind.qualified_kind(), StringAt(Sub(object, "metadata"), "name"), errs);
}

// Keep in step with ValidateKindUpdate: Lease compares only metadata with the old object.
bool UpdateReadsOnlyOldMetadata(const KindInfo& kind) { return kind.kind == "Lease"; }

Status ValidateUpdate(const KindInfo& kind, const json& object, const json& old_object) {
  FieldErrors errs;
  // rest.BeforeUpdate: validateCommonFields, then the strategy's ValidateUpdate.
  ValidateObjectMeta(Sub(object, "metadata"), kind.namespaced, PathSegmentName, errs);
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
  ValidateKindUpdate(kind, object, old_object, errs);
  return InvalidStatus(kind.qualified_kind(), StringAt(Sub(object, "metadata"), "name"), errs);
}

}  // namespace tenure::api
