// Event (core/v1): the kind's one description, with its Table cells and "source" selector.
#include <algorithm>

#include "api/canonical_json.h"
#include "api/kind_entries.h"
#include "api/kind_validation.h"
#include "api/meta_descriptions.h"
#include "api/table.h"
#include "api/types.h"

namespace tenure::api::internal {

const ObjectDescription& ObjectReferenceObject() {
  static const ObjectDescription d{
      .go_name = "ObjectReference",
      .openapi_package = kCoreV1Package,
      .doc =
          "ObjectReference contains enough information to let you inspect or modify the "
          "referred object.",
      .fields =
          {
              field::String("kind", Emit::kOmitEmpty,
                            "Kind of the referent. More info: "
                            "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                            "api-conventions.md#types-kinds")
                  .Bind<&ObjectReference::kind>(),
              field::String("namespace", Emit::kOmitEmpty,
                            "Namespace of the referent. More info: "
                            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                            "namespaces/")
                  .Bind<&ObjectReference::namespace_>(),
              field::String("name", Emit::kOmitEmpty,
                            "Name of the referent. More info: "
                            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                            "names/#names")
                  .Bind<&ObjectReference::name>(),
              field::String("uid", Emit::kOmitEmpty,
                            "UID of the referent. More info: "
                            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                            "names/#uids",
                            "types.UID")
                  .Bind<&ObjectReference::uid>(),
              field::String("apiVersion", Emit::kOmitEmpty, "API version of the referent.")
                  .Bind<&ObjectReference::api_version>(),
              field::String("resourceVersion", Emit::kOmitEmpty,
                            "Specific resourceVersion to which this reference is made, if any. "
                            "More info: "
                            "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                            "api-conventions.md#concurrency-control-and-consistency")
                  .Bind<&ObjectReference::resource_version>(),
              field::String("fieldPath", Emit::kOmitEmpty,
                            "If referring to a piece of an object instead of an entire object, "
                            "this string should contain a valid JSON/Go field access statement, "
                            "such as desiredState.manifest.containers[2]. For example, if the "
                            "object reference is to a container within a pod, this would take "
                            "on a value like: \"spec.containers{name}\" (where \"name\" refers "
                            "to the name of the container that triggered the event) or if no "
                            "container name is specified \"spec.containers[2]\" (container with "
                            "index 2 in this pod). This syntax is chosen only to have some "
                            "well-defined way of referencing a part of an object.")
                  .Bind<&ObjectReference::field_path>(),
          },
      .map_type = "atomic",
  };
  return d;
}

const ObjectDescription& EventSourceObject() {
  static const ObjectDescription d{
      .go_name = "EventSource",
      .openapi_package = kCoreV1Package,
      .doc = "EventSource contains information for an event.",
      .fields = {
          field::String("component", Emit::kOmitEmpty,
                        "Component from which the event is generated.")
              .Bind<&EventSource::component>(),
          field::String("host", Emit::kOmitEmpty, "Node name on which the event is generated.")
              .Bind<&EventSource::host>(),
      }};
  return d;
}

namespace {

using E = Emit;
using nlohmann::json;
using Now = std::chrono::system_clock::time_point;

const ObjectDescription& EventSeriesObject() {
  static const ObjectDescription d{
      .go_name = "EventSeries",
      .doc =
          "EventSeries contain information on series of events, i.e. thing that was/is "
          "happening continuously for some time.",
      .fields = {
          field::Int32("count", E::kOmitEmpty,
                       "Number of occurrences in this series up to the last heartbeat time")
              .Bind<&EventSeries::count>(),
          field::MicroTime("lastObservedTime", E::kAlways, "Time of the last occurrence observed")
              .Bind<&EventSeries::last_observed_time>(),
      }};
  return d;
}

const ObjectDescription& EventObject() {
  static const ObjectDescription d{
      .go_name = "Event",
      .doc =
          "Event is a report of an event somewhere in the cluster.  Events have a limited "
          "retention time and triggers and messages may evolve with time.  Event consumers "
          "should not rely on the timing of an event with a given Reason reflecting a "
          "consistent underlying trigger, or the continued existence of events with that "
          "Reason.  Events should be treated as informative, best-effort, supplemental data.",
      .fields = WithTypeMeta({
          MetadataField(kStandardObjectMeta).Required().Bind<&Event::metadata>(),
          field::Object("involvedObject", E::kAlways, ObjectReferenceObject(),
                        "The object that this event is about.")
              .Required()
              .OpenApiDefault()
              .Bind<&Event::involved_object>(),
          field::String("reason", E::kOmitEmpty,
                        "This should be a short, machine understandable string that gives the "
                        "reason for the transition into the object's current status.")
              .Bind<&Event::reason>(),
          field::String("message", E::kOmitEmpty,
                        "A human-readable description of the status of this operation.")
              .Bind<&Event::message>(),
          field::Object("source", E::kAlways, EventSourceObject(),
                        "The component reporting this event. Should be a short machine "
                        "understandable string.")
              .OpenApiDefault()
              .Bind<&Event::source>(),
          field::Time("firstTimestamp", E::kAlways,
                      "The time at which the event was first recorded. (Time of server receipt "
                      "is in TypeMeta.)")
              .Bind<&Event::first_timestamp>(),
          field::Time("lastTimestamp", E::kAlways,
                      "The time at which the most recent occurrence of this event was recorded.")
              .Bind<&Event::last_timestamp>(),
          field::Int32("count", E::kOmitEmpty, "The number of times this event has occurred.")
              .Bind<&Event::count>(),
          field::String("type", E::kOmitEmpty,
                        "Type of this event (Normal, Warning), new types could be added in the "
                        "future")
              .Bind<&Event::type>(),
          field::MicroTime("eventTime", E::kAlways, "Time when this Event was first observed.")
              .Bind<&Event::event_time>(),
          field::Object("series", E::kPointer, EventSeriesObject(),
                        "Data about the Event series this event represents or nil if it's a "
                        "singleton Event.")
              .Bind<&Event::series>(),
          field::String("action", E::kOmitEmpty,
                        "What action was taken/failed regarding to the Regarding object.")
              .Bind<&Event::action>(),
          field::Object("related", E::kPointer, ObjectReferenceObject(),
                        "Optional secondary object for more complex actions.")
              .Bind<&Event::related>(),
          field::String("reportingComponent", E::kAlways,
                        "Name of the controller that emitted this Event, e.g. "
                        "`kubernetes.io/kubelet`.")
              .Bind<&Event::reporting_component>(),
          field::String("reportingInstance", E::kAlways,
                        "ID of the controller instance, e.g. `kubelet-xyzf`.")
              .Bind<&Event::reporting_instance>(),
      }),
  };
  return d;
}

// source.component, or reportingComponent for events of the new API.
std::string ReportingComponent(const json& o) {
  std::string component(StringAt(Sub(o, "source"), "component"));
  if (component.empty()) component = StringAt(o, "reportingComponent");
  return component;
}

json FirstSeenCell(const json& o, Now now) {
  if (StringAt(o, "firstTimestamp").empty()) return Since(o, "eventTime", now);
  return Since(o, "firstTimestamp", now);
}

json LastSeenCell(const json& o, Now now) {
  if (const json* series = Child(o, "series")) return Since(*series, "lastObservedTime", now);
  if (StringAt(o, "lastTimestamp").empty()) return FirstSeenCell(o, now);
  return Since(o, "lastTimestamp", now);
}

json CountCell(const json& o, Now) {
  auto integer = [](const json* c) {
    return c != nullptr && c->is_number_integer() ? c->get<int64_t>() : int64_t{0};
  };
  if (const json* series = Child(o, "series")) return integer(Child(*series, "count"));
  const int64_t count = integer(Child(o, "count"));
  return count == 0 ? 1 : count;  // singleton events of the new API have no count
}

json ObjectCell(const json& o, Now) {
  const json& involved = Sub(o, "involvedObject");
  std::string target(StringAt(involved, "kind"));
  std::transform(target.begin(), target.end(), target.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!StringAt(involved, "name").empty()) {
    target += '/';
    target += StringAt(involved, "name");
  }
  return target;
}

json SourceCell(const json& o, Now) {
  std::string host(StringAt(Sub(o, "source"), "host"));
  if (host.empty()) host = StringAt(o, "reportingInstance");
  std::string cell = ReportingComponent(o);
  if (!host.empty()) cell += ", " + host;
  return cell;
}

json MessageCell(const json& o, Now) {
  const std::string_view message = StringAt(o, "message");
  const char* ws = " \t\n\r\f\v";
  const size_t b = message.find_first_not_of(ws);
  if (b == std::string_view::npos) return "";
  return message.substr(b, message.find_last_not_of(ws) - b + 1);
}

}  // namespace

std::vector<SelectorField> EventSelectorFields() {
  return {
      {.label = "involvedObject.kind"},
      {.label = "involvedObject.namespace"},
      {.label = "involvedObject.name"},
      {.label = "involvedObject.uid"},
      {.label = "involvedObject.apiVersion"},
      {.label = "involvedObject.resourceVersion"},
      {.label = "involvedObject.fieldPath"},
      {.label = "reason"},
      {.label = "reportingComponent"},
      {.label = "type"},
      {.label = "source", .value = ReportingComponent},
  };
}

std::vector<TableColumn> EventTableColumns() {
  return {
      {.name = "Last Seen", .field = "lastTimestamp", .cell = LastSeenCell},
      {.name = "Type", .field = "type"},
      {.name = "Reason", .field = "reason"},
      {.name = "Object", .field = "involvedObject", .cell = ObjectCell},
      {.name = "Subobject",
       .field = "involvedObject.fieldPath",
       .description = "If referring to a piece of an object instead of an entire object, this "
                      "string should contain a valid JSON/Go field access statement, such as "
                      "desiredState.manifest.containers[2].",
       .priority = 1},
      {.name = "Source", .field = "source", .priority = 1, .cell = SourceCell},
      {.name = "Message", .field = "message", .cell = MessageCell},
      {.name = "First Seen", .field = "firstTimestamp", .priority = 1, .cell = FirstSeenCell},
      {.name = "Count", .field = "count", .priority = 1, .cell = CountCell},
      NameColumn(1),
  };
}

const KindDescription& EventKind() {
  static const KindDescription kind = [] {
    KindDescription k;
    k.group = "";
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
    k.object = &EventObject();
    k.list =
        ListObject(EventObject(), k.list_kind, "EventList is a list of events.", "List of events");
    k.columns = EventTableColumns();
    k.selector_fields = EventSelectorFields();
    k.validation = {.create = ValidateEvent, .update = ValidateEventUpdate};
    return k;
  }();
  return kind;
}

}  // namespace tenure::api::internal
