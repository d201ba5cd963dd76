// The kinds' validation hooks (kube-apiserver's strategies) and ValidateCreate / ValidateUpdate.
#include "api/kind_validation.h"

#include "api/canonical_json.h"
#include "api/description.h"
#include "api/kinds.h"
#include "api/object_meta_validation.h"

namespace tenure::api {
namespace internal {
namespace {

using nlohmann::json;

constexpr int64_t kMaxConfigMapSize = 1024 * 1024;
constexpr std::string_view kOldestEmulationVersion = "OldestEmulationVersion";

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

}  // namespace

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

// Each of spec.finalizers a qualified name, standard or fully qualified (create, update and the
// finalize subresource alike).
void ValidateNamespaceFinalizers(const json& object, FieldErrors& errs) {
  for (const auto& f : StringList(Sub(object, "spec"), "finalizers")) {
    for (auto& msg : IsQualifiedName(f)) errs.push_back(Invalid("spec.finalizers", f, msg));
    if (f.find('/') == std::string::npos && !IsStandardFinalizer(f)) {
      errs.push_back(
          Invalid("spec.finalizers", f,
                  "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
}

void ValidateNamespace(const json& object, FieldErrors& errs) {
  ValidateCoreObjectMeta(Sub(object, "metadata"), false, NameIsDNSLabel, errs);
  ValidateNamespaceFinalizers(object, errs);
}

void ValidateEvent(const json& object, FieldErrors& errs) {
  ValidateEventAs(object, "reportingComponent", errs);
}

// legacyValidateEvent: the only strategy validation of core/v1 Events, and the first one of
// events.k8s.io/v1's (which names the reporting component reportingController).
void ValidateEventAs(const json& object, const char* reporting_field, FieldErrors& errs) {
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
    if (controller.empty()) errs.push_back(Required(reporting_field));
    for (auto& msg : IsQualifiedName(controller)) {
      errs.push_back(Invalid(reporting_field, controller, msg));
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

void ValidateLease(const json& object, FieldErrors& errs) {
  ValidateObjectMeta(Sub(object, "metadata"), true, NameIsDNSSubdomain, errs);
  ValidateLeaseSpec(Sub(object, "spec"), errs);
}

void ValidateLeaseUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
  ValidateLeaseSpec(Sub(object, "spec"), errs);
}

void ValidateLeaseCandidate(const json& object, FieldErrors& errs) {
  ValidateObjectMeta(Sub(object, "metadata"), true, LeaseCandidateName, errs);
  ValidateLeaseCandidateSpec(Sub(object, "spec"), errs);
}

void ValidateLeaseCandidateUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
  ValidateLeaseCandidateSpec(Sub(object, "spec"), errs);
  const std::string_view lease_name = StringAt(Sub(object, "spec"), "leaseName");
  if (lease_name != StringAt(Sub(old_object, "spec"), "leaseName")) {
    errs.push_back(Invalid("spec.leaseName", lease_name, "field is immutable"));
  }
}

void ValidateConfigMapUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
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
}

void ValidateNamespaceUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  ValidateObjectMetaUpdate(Sub(object, "metadata"), Sub(old_object, "metadata"), errs);
  ValidateNamespaceFinalizers(object, errs);
}

void ValidateEventUpdate(const json& object, const json&, FieldErrors& errs) {
  ValidateEvent(object, errs);
}

}  // namespace internal

Status ValidateCreate(const KindInfo& kind, const nlohmann::json& object) {
  FieldErrors errs;
  if (const auto create = Describe(kind).validation.create) create(object, errs);
  // rest.BeforeCreate: the generic object-meta checks run only when the strategy found none (a
  // review, never stored, has no name to check).
  if (errs.empty() && kind.stored) {
    internal::ValidateObjectMeta(internal::Sub(object, "metadata"), kind.namespaced,
                                 internal::PathSegmentName, errs);
  }
  return InvalidStatus(kind.qualified_kind(),
                       internal::StringAt(internal::Sub(object, "metadata"), "name"), errs);
}

bool UpdateReadsOnlyOldMetadata(const KindInfo& kind) {
  return Describe(kind).validation.update_reads_only_old_metadata;
}

Status ValidateUpdate(const KindInfo& kind, const nlohmann::json& object,
                      const nlohmann::json& old_object) {
  const auto update = Describe(kind).validation.update;
  // A kind served for create only (the reviews, TokenRequest) has no update to validate.
  if (!update) {
    return Status(Reason::kMethodNotAllowed,
                  "the server does not allow this method on the requested resource");
  }
  FieldErrors errs;
  const nlohmann::json& meta = internal::Sub(object, "metadata");
  // rest.BeforeUpdate: validateCommonFields, then the strategy's ValidateUpdate.
  internal::ValidateObjectMeta(meta, kind.namespaced, internal::PathSegmentName, errs);
  internal::ValidateObjectMetaUpdate(meta, internal::Sub(old_object, "metadata"), errs);
  update(object, old_object, errs);
  return InvalidStatus(kind.qualified_kind(), internal::StringAt(meta, "name"), errs);
}

}  // namespace tenure::api
