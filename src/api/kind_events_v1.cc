// Event (events.k8s.io/v1): the kind's description, stored as core/v1 Events (kube-apiserver's
// cohabitating resources: both APIs see the same objects, names and resourceVersions), the
// conversions between the two forms, and the stricter validation of writes through this API.
#include <utility>

#include "api/canonical_json.h"
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/object_meta_validation.h"
#include "api/table.h"

namespace tenure::api::internal {
namespace {

using E = Emit;
using nlohmann::json;

const ObjectDescription& EventsSeriesObject() {
  static const ObjectDescription d{
      .go_name = "EventSeries",
      .doc =
          "EventSeries contain information on series of events, i.e. thing that was/is "
          "happening continuously for some time. How often to update the EventSeries is up to "
          "the event reporters. The default event reporter in \"k8s.io/client-go/tools/events/"
          "event_broadcaster.go\" shows how this struct is updated on heartbeats and can guide "
          "customized reporter implementations.",
      .fields = {
          field::Int32("count", E::kAlways,
                       "count is the number of occurrences in this series up to the last "
                       "heartbeat time.")
              .Required(),
          field::MicroTime("lastObservedTime", E::kAlways,
                           "lastObservedTime is the time when last Event from the series was "
                           "seen before last heartbeat.")
              .Required(),
      }};
  return d;
}

const ObjectDescription& EventsEventObject() {
  static const ObjectDescription d{
      .go_name = "Event",
      .doc =
          "Event is a report of an event somewhere in the cluster. It generally denotes some "
          "state change in the system. Events have a limited retention time and triggers and "
          "messages may evolve with time.  Event consumers should not rely on the timing of an "
          "event with a given Reason reflecting a consistent underlying trigger, or the "
          "continued existence of events with that Reason.  Events should be treated as "
          "informative, best-effort, supplemental data.",
      .fields = WithTypeMeta({
          MetadataField(kStandardObjectMeta).Required(),
          field::MicroTime("eventTime", E::kAlways,
                           "eventTime is the time when this Event was first observed. It is "
                           "required.")
              .Required(),
          field::Object("series", E::kPointer, EventsSeriesObject(),
                        "series is data about the Event series this event represents or nil "
                        "if it's a singleton Event."),
          field::String("reportingController", E::kOmitEmpty,
                        "reportingController is the name of the controller that emitted this "
                        "Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for "
                        "new Events."),
          field::String("reportingInstance", E::kOmitEmpty,
                        "reportingInstance is the ID of the controller instance, e.g. "
                        "`kubelet-xyzf`. This field cannot be empty for new Events and it can "
                        "have at most 128 characters."),
          field::String("action", E::kOmitEmpty,
                        "action is what action was taken/failed regarding to the regarding "
                        "object. It is machine-readable. This field cannot be empty for new "
                        "Events and it can have at most 128 characters."),
          field::String("reason", E::kOmitEmpty,
                        "reason is why the action was taken. It is human-readable. This field "
                        "cannot be empty for new Events and it can have at most 128 "
                        "characters."),
          field::Object("regarding", E::kAlways, ObjectReferenceObject(),
                        "regarding contains the object this Event is about. In most cases it's "
                        "an Object reporting controller implements, e.g. ReplicaSetController "
                        "implements ReplicaSets and this event is emitted because it acts on "
                        "some changes in a ReplicaSet object.")
              .OpenApiDefault(),
          field::Object("related", E::kPointer, ObjectReferenceObject(),
                        "related is the optional secondary object for more complex actions. "
                        "E.g. when regarding object triggers a creation or deletion of related "
                        "object."),
          field::String("note", E::kOmitEmpty,
                        "note is a human-readable description of the status of this operation. "
                        "Maximal length of the note is 1kB, but libraries should be prepared "
                        "to handle values up to 64kB."),
          field::String("type", E::kOmitEmpty,
                        "type is the type of this event (Normal, Warning), new types could be "
                        "added in the future. It is machine-readable. This field cannot be "
                        "empty for new Events."),
          field::Object("deprecatedSource", E::kAlways, EventSourceObject(),
                        "deprecatedSource is the deprecated field assuring backward "
                        "compatibility with core.v1 Event type.")
              .OpenApiDefault(),
          field::Time("deprecatedFirstTimestamp", E::kAlways,
                      "deprecatedFirstTimestamp is the deprecated field assuring backward "
                      "compatibility with core.v1 Event type."),
          field::Time("deprecatedLastTimestamp", E::kAlways,
                      "deprecatedLastTimestamp is the deprecated field assuring backward "
                      "compatibility with core.v1 Event type."),
          field::Int32("deprecatedCount", E::kOmitEmpty,
                       "deprecatedCount is the deprecated field assuring backward "
                       "compatibility with core.v1 Event type."),
      }),
  };
  return d;
}

// events.k8s.io/v1 field -> core/v1 field (kube's conversion); the others have the same name.
constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
    {"note", "message"},
    {"regarding", "involvedObject"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
    {"reportingController", "reportingComponent"},
};

json Renamed(const json& object, bool to_core, std::string_view api_version) {
  json out = json::object();
  for (const auto& [key, value] : object.items()) {
    std::string_view name = key;
    for (const auto& [events, core] : kRenamed) {
      if (name == (to_core ? events : core)) {
        name = to_core ? core : events;
        break;
      }
    }
    out[std::string(name)] = value;
  }
  out["apiVersion"] = api_version;
  return out;
}

// Both conversions canonicalize their result: every field written as the target's Go encoder
// writes it. A canonical object of one form always converts (the kinds hold the same values).
json ToCore(const json& object) {
  auto core = Canonicalize(EventKind(), Renamed(object, true, "v1"), {});
  return core.ok() ? std::move(*core) : Renamed(object, true, "v1");
}

json FromCore(const json& stored) {
  auto events = Canonicalize(EventsV1EventKind(), Renamed(stored, false, "events.k8s.io/v1"), {});
  return events.ok() ? std::move(*events) : Renamed(stored, false, "events.k8s.io/v1");
}

bool IsSet(const json& object, const char* key) {
  const json* value = Child(object, key);
  return value != nullptr && !value->is_null() && !(value->is_string() && value->empty()) &&
         !(value->is_number_integer() && value->get<int64_t>() == 0);
}

void ValidateSeries(const json& core, FieldErrors& errs) {
  const json* series = Child(core, "series");
  if (series == nullptr || series->is_null()) return;
  const json* count = Child(*series, "count");
  if (count == nullptr || !count->is_number_integer() || count->get<int64_t>() < 2) {
    errs.push_back(Invalid("series.count", "", "should be at least 2"));
  }
  if (!IsSet(*series, "lastObservedTime")) errs.push_back(Required("series.lastObservedTime"));
}

// ValidateEventCreate for events.k8s.io/v1: the legacy checks, then the strict ones, on the
// object as core/v1 holds it (kube validates its internal type: the paths are core's).
void ValidateEventsEvent(const json& object, FieldErrors& errs) {
  const json core = ToCore(object);
  ValidateEventAs(core, "reportingController", errs);
  ValidateObjectMeta(Sub(core, "metadata"), true, NameIsDNSSubdomain, errs);
  ValidateSeries(core, errs);
  if (!IsSet(core, "eventTime")) errs.push_back(Required("eventTime"));
  const std::string_view type = StringAt(core, "type");
  if (type != "Normal" && type != "Warning") {
    errs.push_back(Invalid("type", "", "has invalid value: " + std::string(type)));
  }
  for (const char* deprecated : {"firstTimestamp", "lastTimestamp", "count"}) {
    if (IsSet(core, deprecated)) errs.push_back(Invalid(deprecated, "", "needs to be unset"));
  }
  const json& source = Sub(core, "source");
  if (!StringAt(source, "component").empty() || !StringAt(source, "host").empty()) {
    errs.push_back(Invalid("source", "", "needs to be unset"));
  }
}

// ValidateEventUpdate for events.k8s.io/v1: what an Event says cannot change, only its series
// and metadata.
void ValidateEventsEventUpdate(const json& object, const json& old_object, FieldErrors& errs) {
  const json core = ToCore(object);
  const json old_core = ToCore(old_object);
  ValidateEventAs(core, "reportingController", errs);
  ValidateObjectMetaUpdate(Sub(core, "metadata"), Sub(old_core, "metadata"), errs);
  const json* series = Child(core, "series");
  const json* old_series = Child(old_core, "series");
  if ((series == nullptr) != (old_series == nullptr) || (series && *series != *old_series)) {
    ValidateSeries(core, errs);
  }
  for (const char* field :
       {"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count",
        "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance"}) {
    const json* now = Child(core, field);
    const json* before = Child(old_core, field);
    const json none;
    if ((now ? *now : none) == (before ? *before : none)) continue;
    // kube names the field as its internal type does, reportingController for the component.
    const std::string path = std::string_view(field) == "reportingComponent" ? "reportingController"
                                                                             : std::string(field);
    // An absent value is Go's zero value: "" for the strings.
    const bool absent = now == nullptr || now->is_null();
    errs.push_back(InvalidRaw(path, absent ? "\"\"" : now->dump(), "field is immutable"));
  }
}

}  // namespace

const KindDescription& EventsV1EventKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "events.k8s.io";
    k.versions = {"v1"};
    k.kind = "Event";
    k.list_kind = "EventList";
    k.resource = "events";
    k.singular = "event";
    k.namespaced = true;
    k.short_names = {"ev"};
    k.allow_unconditional_update = true;
    k.allow_create_on_update = true;
    k.verbs = AllVerbs();
    k.object = &EventsEventObject();
    k.list = ListObject(EventsEventObject(), k.list_kind, "EventList is a list of Event objects.",
                        "items is a list of schema objects.");
    k.stored_as = &EventKind();
    k.to_storage = ToCore;
    k.from_storage = FromCore;
    k.selector_fields = EventSelectorFields();  // on the stored core form, as kube
    k.validation = {.create = ValidateEventsEvent, .update = ValidateEventsEventUpdate};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
