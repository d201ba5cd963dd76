// The fields each kind supports in field selectors, as kube-apiserver's ToSelectableFields.
#include "api/kinds.h"
#include "api/schema.h"

namespace tenure::api {
namespace {

using internal::Child;
using internal::StringAt;
using nlohmann::json;

const json& Sub(const json& object, const char* key) {
  const json* v = Child(object, key);
  return v != nullptr ? *v : internal::EmptyObject();
}

}  // namespace

Result<std::string> SelectableField(const KindInfo& kind, const json& object,
                                    std::string_view field) {
  const json& meta = Sub(object, "metadata");
  if (field == "metadata.name") return std::string(StringAt(meta, "name"));
  if (field == "metadata.namespace") return std::string(StringAt(meta, "namespace"));
  if (kind.kind == "LeaseCandidate" && field == "spec.leaseName") {
    return std::string(StringAt(Sub(object, "spec"), "leaseName"));
  }
  if (kind.kind == "Namespace") {
    if (field == "status.phase") return std::string(StringAt(Sub(object, "status"), "phase"));
    if (field == "name") return std::string(StringAt(meta, "name"));
  }
  if (kind.kind == "Event") {
    static constexpr std::string_view kInvolved = "involvedObject.";
    if (field.substr(0, kInvolved.size()) == kInvolved) {
      const std::string_view sub = field.substr(kInvolved.size());
      for (const char* key :
           {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"}) {
        if (sub == key) return std::string(StringAt(Sub(object, "involvedObject"), key));
      }
    }
    if (field == "reason") return std::string(StringAt(object, "reason"));
    if (field == "reportingComponent") return std::string(StringAt(object, "reportingComponent"));
    if (field == "type") return std::string(StringAt(object, "type"));
    if (field == "source") {
      std::string source(StringAt(Sub(object, "source"), "component"));
      if (source.empty()) source = StringAt(object, "reportingComponent");
      return source;
    }
  }
  return Status::BadRequest("field label not supported: " + std::string(field));
}

}  // namespace tenure::api
