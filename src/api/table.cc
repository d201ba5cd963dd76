// Table columns and cells, as kube-apiserver's printers (pkg/printers/internalversion) render
// them. The server always prints wide; kubectl hides columns with priority > 0 unless -o wide.
#include <algorithm>

#include "api/kinds.h"
#include "api/schema.h"
#include "api/time.h"

namespace tenure::api {
namespace {

using internal::Child;
using internal::StringAt;
using nlohmann::json;

constexpr std::string_view kNameDoc =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
constexpr std::string_view kCreationDoc =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";

json Column(std::string_view name, std::string_view type, std::string_view format,
            std::string_view description, int priority = 0) {
  return json{{"name", name},
              {"type", type},
              {"format", format},
              {"description", description},
              {"priority", priority}};
}

json NameColumn() { return Column("Name", "string", "name", kNameDoc); }
json AgeColumn() { return Column("Age", "string", "", kCreationDoc); }

const json& Sub(const json& object, const char* key) {
  const json* v = Child(object, key);
  return v != nullptr ? *v : internal::EmptyObject();
}

// translateTimestampSince / translateMicroTimestampSince.
std::string Since(const json& object, const char* key, std::chrono::system_clock::time_point now) {
  const std::string_view text = StringAt(object, key);
  if (text.empty()) return "<unknown>";
  auto t = ParseTime(text);
  if (!t) return "<unknown>";
  return HumanDuration(std::chrono::duration_cast<std::chrono::nanoseconds>(now - *t));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string Trim(std::string_view s) {
  const char* ws = " \t\n\r\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

json EventCells(const json& o, std::chrono::system_clock::time_point now) {
  std::string first = Since(o, "firstTimestamp", now);
  if (StringAt(o, "firstTimestamp").empty()) first = Since(o, "eventTime", now);
  std::string last = Since(o, "lastTimestamp", now);
  if (StringAt(o, "lastTimestamp").empty()) last = first;
  int64_t count = 0;
  if (const json* c = Child(o, "count"); c != nullptr && c->is_number_integer()) {
    count = c->get<int64_t>();
  }
  if (const json* series = Child(o, "series")) {
    last = Since(*series, "lastObservedTime", now);
    const json* c = Child(*series, "count");
    count = c != nullptr && c->is_number_integer() ? c->get<int64_t>() : 0;
  } else if (count == 0) {
    count = 1;  // singleton events of the new API have no count
  }
  const json& involved = Sub(o, "involvedObject");
  std::string target = Lower(StringAt(involved, "kind"));
  if (!StringAt(involved, "name").empty()) {
    target += '/';
    target += StringAt(involved, "name");
  }
  const json& source = Sub(o, "source");
  std::string component(StringAt(source, "component"));
  if (component.empty()) component = StringAt(o, "reportingComponent");
  std::string host(StringAt(source, "host"));
  if (host.empty()) host = StringAt(o, "reportingInstance");
  std::string source_cell = component;
  if (!host.empty()) source_cell += ", " + host;
  return json::array({last, StringAt(o, "type"), StringAt(o, "reason"), target,
                      StringAt(involved, "fieldPath"), source_cell, Trim(StringAt(o, "message")),
                      first, count, StringAt(Sub(o, "metadata"), "name")});
}

}  // namespace

json TableColumns(const KindInfo& kind) {
  if (kind.kind == "Lease") {
    return json::array(
        {NameColumn(),
         Column("Holder", "string", "",
                "holderIdentity contains the identity of the holder of a current lease. If "
                "Coordinated Leader Election is used, the holder identity must be equal to the "
                "elected LeaseCandidate.metadata.name field."),
         AgeColumn()});
  }
  if (kind.kind == "LeaseCandidate") {
    return json::array(
        {NameColumn(),
         Column("LeaseName", "string", "",
                "LeaseName is the name of the lease for which this candidate is contending. "
                "The limits on this field are the same as on Lease.name. Multiple lease "
                "candidates may reference the same Lease.name. This field is immutable."),
         Column("BinaryVersion", "string", "",
                "BinaryVersion is the binary version. It must be in a semver format without "
                "leading `v`. This field is required."),
         Column("EmulationVersion", "string", "",
                "EmulationVersion is the emulation version. It must be in a semver format "
                "without leading `v`. EmulationVersion must be less than or equal to "
                "BinaryVersion. This field is required when strategy is "
                "\"OldestEmulationVersion\""),
         AgeColumn()});
  }
  if (kind.kind == "ConfigMap") {
    return json::array(
        {NameColumn(),
         Column("Data", "string", "",
                "Data contains the configuration data. Each key must consist of alphanumeric "
                "characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
                "BinaryData field. The keys stored in Data must not overlap with the keys in the "
                "BinaryData field, this is enforced during validation process."),
         AgeColumn()});
  }
  if (kind.kind == "Namespace") {
    return json::array(
        {NameColumn(), Column("Status", "string", "", "The status of the namespace"), AgeColumn()});
  }
  // Event
  return json::array({
      Column("Last Seen", "string", "",
             "The time at which the most recent occurrence of this "
             "event was recorded."),
      Column("Type", "string", "",
             "Type of this event (Normal, Warning), new types could be "
             "added in the future"),
      Column("Reason", "string", "",
             "This should be a short, machine understandable string "
             "that gives the reason for the transition into the "
             "object's current status."),
      Column("Object", "string", "", "The object that this event is about."),
      Column("Subobject", "string", "",
             "If referring to a piece of an object instead of an entire object, this string "
             "should contain a valid JSON/Go field access statement, such as "
             "desiredState.manifest.containers[2].",
             1),
      Column("Source", "string", "",
             "The component reporting this event. Should be a short "
             "machine understandable string.",
             1),
      Column("Message", "string", "",
             "A human-readable description of the status of this "
             "operation."),
      Column("First Seen", "string", "",
             "The time at which the event was first recorded. "
             "(Time of server receipt is in TypeMeta.)",
             1),
      Column("Count", "string", "", "The number of times this event has occurred.", 1),
      Column("Name", "string", "name", kNameDoc, 1),
  });
}

json TableCells(const KindInfo& kind, const json& object,
                std::chrono::system_clock::time_point now) {
  const json& meta = Sub(object, "metadata");
  const json& spec = Sub(object, "spec");
  const std::string_view name = StringAt(meta, "name");
  if (kind.kind == "Lease") {
    return json::array(
        {name, StringAt(spec, "holderIdentity"), Since(meta, "creationTimestamp", now)});
  }
  if (kind.kind == "LeaseCandidate") {
    return json::array({name, StringAt(spec, "leaseName"), StringAt(spec, "binaryVersion"),
                        StringAt(spec, "emulationVersion"), Since(meta, "creationTimestamp", now)});
  }
  if (kind.kind == "ConfigMap") {
    const int64_t n =
        static_cast<int64_t>(Sub(object, "data").size() + Sub(object, "binaryData").size());
    return json::array({name, n, Since(meta, "creationTimestamp", now)});
  }
  if (kind.kind == "Namespace") {
    return json::array(
        {name, StringAt(Sub(object, "status"), "phase"), Since(meta, "creationTimestamp", now)});
  }
  return EventCells(object, now);
}

}  // namespace tenure::api
