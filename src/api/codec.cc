// ToJson and the *FromJson decoders: typed objects to and from kube-apiserver's JSON; Base64.
#include "api/codec.h"

#include "api/kinds.h"
#include "api/schema.h"

namespace tenure::api {
namespace {

using internal::Child;
using internal::StringAt;
using nlohmann::json;

const KindInfo& Kind(std::string_view group, std::string_view kind) {
  return *FindByKind(group, kind);
}

void PutString(json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

void PutMap(json& out, const char* key, const std::map<std::string, std::string>& m) {
  if (!m.empty()) out[key] = m;
}

void PutMicro(json& out, const char* key, const std::optional<Timestamp>& t) {
  if (t) out[key] = FormatMicroTime(*t);
}

const json& Sub(const json& object, const char* key) {
  const json* v = Child(object, key);
  return v != nullptr ? *v : internal::EmptyObject();
}

std::string Str(const json& o, const char* key) { return std::string(StringAt(o, key)); }

std::optional<std::string> OptStr(const json& o, const char* key) {
  const json* v = Child(o, key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

template <typename Int>
std::optional<Int> OptInt(const json& o, const char* key) {
  const json* v = Child(o, key);
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  return static_cast<Int>(v->get<int64_t>());
}

std::optional<bool> OptBool(const json& o, const char* key) {
  const json* v = Child(o, key);
  if (v == nullptr || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

std::optional<Timestamp> OptTime(const json& o, const char* key) {
  const json* v = Child(o, key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return ParseTime(v->get_ref<const std::string&>());
}

std::map<std::string, std::string> StrMap(const json& o, const char* key) {
  std::map<std::string, std::string> out;
  const json* v = Child(o, key);
  if (v == nullptr || !v->is_object()) return out;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (it->is_string()) out.emplace(it.key(), it->get<std::string>());
  }
  return out;
}

std::vector<std::string> StrList(const json& o, const char* key) {
  std::vector<std::string> out;
  const json* v = Child(o, key);
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& e : *v) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

ObjectMeta MetaFromCanonical(const json& m) {
  ObjectMeta meta;
  meta.name = Str(m, "name");
  meta.generate_name = Str(m, "generateName");
  meta.namespace_ = Str(m, "namespace");
  meta.uid = Str(m, "uid");
  meta.resource_version = Str(m, "resourceVersion");
  meta.generation = OptInt<int64_t>(m, "generation").value_or(0);
  meta.creation_timestamp = OptTime(m, "creationTimestamp");
  meta.deletion_timestamp = OptTime(m, "deletionTimestamp");
  meta.deletion_grace_period_seconds = OptInt<int64_t>(m, "deletionGracePeriodSeconds");
  meta.labels = StrMap(m, "labels");
  meta.annotations = StrMap(m, "annotations");
  if (const json* refs = Child(m, "ownerReferences"); refs != nullptr && refs->is_array()) {
    for (const auto& r : *refs) {
      OwnerReference ref;
      ref.api_version = Str(r, "apiVersion");
      ref.kind = Str(r, "kind");
      ref.name = Str(r, "name");
      ref.uid = Str(r, "uid");
      ref.controller = OptBool(r, "controller");
      ref.block_owner_deletion = OptBool(r, "blockOwnerDeletion");
      meta.owner_references.push_back(std::move(ref));
    }
  }
  meta.finalizers = StrList(m, "finalizers");
  return meta;
}

ObjectReference RefFromCanonical(const json& o) {
  ObjectReference ref;
  ref.kind = Str(o, "kind");
  ref.namespace_ = Str(o, "namespace");
  ref.name = Str(o, "name");
  ref.uid = Str(o, "uid");
  ref.api_version = Str(o, "apiVersion");
  ref.resource_version = Str(o, "resourceVersion");
  ref.field_path = Str(o, "fieldPath");
  return ref;
}

// Decodes `in` against the kind's schema (tolerantly) into canonical JSON.
Result<json> Decode(const KindInfo& kind, const json& in) {
  json canonical;
  std::string err = internal::CanonicalizeObject(internal::SchemaFor(kind), in, canonical, false);
  if (!err.empty()) {
    return Status::BadRequest("cannot decode " + std::string(kind.kind) + ": " + err);
  }
  return canonical;
}

Lease LeaseFromCanonical(const json& c) {
  Lease lease;
  lease.metadata = MetaFromCanonical(Sub(c, "metadata"));
  const json& s = Sub(c, "spec");
  lease.spec.holder_identity = OptStr(s, "holderIdentity");
  lease.spec.lease_duration_seconds = OptInt<int32_t>(s, "leaseDurationSeconds");
  lease.spec.acquire_time = OptTime(s, "acquireTime");
  lease.spec.renew_time = OptTime(s, "renewTime");
  lease.spec.lease_transitions = OptInt<int32_t>(s, "leaseTransitions");
  lease.spec.strategy = OptStr(s, "strategy");
  lease.spec.preferred_holder = OptStr(s, "preferredHolder");
  return lease;
}

LeaseCandidate CandidateFromCanonical(const json& c) {
  LeaseCandidate cand;
  cand.metadata = MetaFromCanonical(Sub(c, "metadata"));
  const json& s = Sub(c, "spec");
  cand.spec.lease_name = Str(s, "leaseName");
  cand.spec.ping_time = OptTime(s, "pingTime");
  cand.spec.renew_time = OptTime(s, "renewTime");
  cand.spec.binary_version = Str(s, "binaryVersion");
  cand.spec.emulation_version = Str(s, "emulationVersion");
  cand.spec.strategy = Str(s, "strategy");
  return cand;
}

ConfigMap ConfigMapFromCanonical(const json& c) {
  ConfigMap cm;
  cm.metadata = MetaFromCanonical(Sub(c, "metadata"));
  cm.data = StrMap(c, "data");
  for (auto& [k, v] : StrMap(c, "binaryData")) {
    cm.binary_data.emplace(k, Base64Decode(v).value_or(""));
  }
  cm.immutable = OptBool(c, "immutable");
  return cm;
}

Namespace NamespaceFromCanonical(const json& c) {
  Namespace ns;
  ns.metadata = MetaFromCanonical(Sub(c, "metadata"));
  ns.finalizers = StrList(Sub(c, "spec"), "finalizers");
  ns.phase = Str(Sub(c, "status"), "phase");
  return ns;
}

Event EventFromCanonical(const json& c) {
  Event e;
  e.metadata = MetaFromCanonical(Sub(c, "metadata"));
  e.involved_object = RefFromCanonical(Sub(c, "involvedObject"));
  e.reason = Str(c, "reason");
  e.message = Str(c, "message");
  e.source.component = Str(Sub(c, "source"), "component");
  e.source.host = Str(Sub(c, "source"), "host");
  e.first_timestamp = OptTime(c, "firstTimestamp");
  e.last_timestamp = OptTime(c, "lastTimestamp");
  e.count = OptInt<int32_t>(c, "count").value_or(0);
  e.type = Str(c, "type");
  e.event_time = OptTime(c, "eventTime");
  if (const json* s = Child(c, "series")) {
    EventSeries series;
    series.count = OptInt<int32_t>(*s, "count").value_or(0);
    series.last_observed_time = OptTime(*s, "lastObservedTime");
    e.series = series;
  }
  e.action = Str(c, "action");
  if (const json* r = Child(c, "related")) e.related = RefFromCanonical(*r);
  e.reporting_component = Str(c, "reportingComponent");
  e.reporting_instance = Str(c, "reportingInstance");
  return e;
}

template <typename T, typename FromCanonical>
Result<List<T>> ListFromJson(const KindInfo& kind, const json& in, FromCanonical from) {
  if (!in.is_object()) {
    return Status::BadRequest("cannot decode " + std::string(kind.list_kind) +
                              ": not a JSON object");
  }
  List<T> list;
  const json& meta = Sub(in, "metadata");
  list.metadata.resource_version = Str(meta, "resourceVersion");
  list.metadata.continue_token = Str(meta, "continue");
  list.metadata.remaining_item_count = OptInt<int64_t>(meta, "remainingItemCount");
  const json* items = Child(in, "items");
  if (items == nullptr) return list;
  if (!items->is_array()) {
    return Status::BadRequest("cannot decode " + std::string(kind.list_kind) +
                              ": items is not an array");
  }
  for (const auto& item : *items) {
    auto canonical = Decode(kind, item);
    if (!canonical.ok()) return canonical.status();
    list.items.push_back(from(*canonical));
  }
  return list;
}

}  // namespace

std::string Base64Encode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) |
                       (static_cast<uint8_t>(in[i + 1]) << 8) | static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string clean;
  for (char c : text) {
    if (c != '\r' && c != '\n') clean += c;
  }
  if (clean.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(clean.size() / 4 * 3);
  for (size_t i = 0; i < clean.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = clean[i + k];
      if (c == '=' && i + 4 == clean.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;
      v[k] = value(c);
      if (v[k] < 0) return std::nullopt;
    }
    const uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>((n >> 16) & 0xFF);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(n & 0xFF);
  }
  return out;
}

json ToJson(const ObjectMeta& m) {
  json out = json::object();
  PutString(out, "name", m.name);
  PutString(out, "generateName", m.generate_name);
  PutString(out, "namespace", m.namespace_);
  PutString(out, "uid", m.uid);
  PutString(out, "resourceVersion", m.resource_version);
  if (m.generation != 0) out["generation"] = m.generation;
  if (m.creation_timestamp) out["creationTimestamp"] = FormatTime(*m.creation_timestamp);
  if (m.deletion_timestamp) out["deletionTimestamp"] = FormatTime(*m.deletion_timestamp);
  if (m.deletion_grace_period_seconds) {
    out["deletionGracePeriodSeconds"] = *m.deletion_grace_period_seconds;
  }
  PutMap(out, "labels", m.labels);
  PutMap(out, "annotations", m.annotations);
  if (!m.owner_references.empty()) {
    json refs = json::array();
    for (const auto& r : m.owner_references) {
      json ref = {
          {"apiVersion", r.api_version}, {"kind", r.kind}, {"name", r.name}, {"uid", r.uid}};
      if (r.controller) ref["controller"] = *r.controller;
      if (r.block_owner_deletion) ref["blockOwnerDeletion"] = *r.block_owner_deletion;
      refs.push_back(std::move(ref));
    }
    out["ownerReferences"] = std::move(refs);
  }
  if (!m.finalizers.empty()) out["finalizers"] = m.finalizers;
  return out;
}

json ToJson(const LeaseSpec& s) {
  json out = json::object();
  if (s.holder_identity) out["holderIdentity"] = *s.holder_identity;
  if (s.lease_duration_seconds) out["leaseDurationSeconds"] = *s.lease_duration_seconds;
  PutMicro(out, "acquireTime", s.acquire_time);
  PutMicro(out, "renewTime", s.renew_time);
  if (s.lease_transitions) out["leaseTransitions"] = *s.lease_transitions;
  if (s.strategy) out["strategy"] = *s.strategy;
  if (s.preferred_holder) out["preferredHolder"] = *s.preferred_holder;
  return out;
}

json ToJson(const Lease& lease) {
  return json{{"apiVersion", "coordination.k8s.io/v1"},
              {"kind", "Lease"},
              {"metadata", ToJson(lease.metadata)},
              {"spec", ToJson(lease.spec)}};
}

json ToJson(const LeaseCandidateSpec& s) {
  json out = {
      {"leaseName", s.lease_name}, {"binaryVersion", s.binary_version}, {"strategy", s.strategy}};
  PutMicro(out, "pingTime", s.ping_time);
  PutMicro(out, "renewTime", s.renew_time);
  PutString(out, "emulationVersion", s.emulation_version);
  return out;
}

json ToJson(const LeaseCandidate& c, std::string_view version) {
  return json{{"apiVersion", "coordination.k8s.io/" + std::string(version)},
              {"kind", "LeaseCandidate"},
              {"metadata", ToJson(c.metadata)},
              {"spec", ToJson(c.spec)}};
}

json ToJson(const ConfigMap& cm) {
  json out = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", ToJson(cm.metadata)}};
  PutMap(out, "data", cm.data);
  if (!cm.binary_data.empty()) {
    json bin = json::object();
    for (const auto& [k, v] : cm.binary_data) bin[k] = Base64Encode(v);
    out["binaryData"] = std::move(bin);
  }
  if (cm.immutable) out["immutable"] = *cm.immutable;
  return out;
}

json ToJson(const Namespace& ns) {
  json spec = json::object();
  if (!ns.finalizers.empty()) spec["finalizers"] = ns.finalizers;
  json status = json::object();
  PutString(status, "phase", ns.phase);
  return json{{"apiVersion", "v1"},
              {"kind", "Namespace"},
              {"metadata", ToJson(ns.metadata)},
              {"spec", std::move(spec)},
              {"status", std::move(status)}};
}

json ToJson(const ObjectReference& r) {
  json out = json::object();
  PutString(out, "kind", r.kind);
  PutString(out, "namespace", r.namespace_);
  PutString(out, "name", r.name);
  PutString(out, "uid", r.uid);
  PutString(out, "apiVersion", r.api_version);
  PutString(out, "resourceVersion", r.resource_version);
  PutString(out, "fieldPath", r.field_path);
  return out;
}

json ToJson(const Event& e) {
  json out = {{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", ToJson(e.metadata)},
              {"involvedObject", ToJson(e.involved_object)},
              {"reportingComponent", e.reporting_component},
              {"reportingInstance", e.reporting_instance}};
  PutString(out, "reason", e.reason);
  PutString(out, "message", e.message);
  json source = json::object();
  PutString(source, "component", e.source.component);
  PutString(source, "host", e.source.host);
  out["source"] = std::move(source);
  out["firstTimestamp"] = e.first_timestamp ? json(FormatTime(*e.first_timestamp)) : json();
  out["lastTimestamp"] = e.last_timestamp ? json(FormatTime(*e.last_timestamp)) : json();
  if (e.count != 0) out["count"] = e.count;
  PutString(out, "type", e.type);
  out["eventTime"] = e.event_time ? json(FormatMicroTime(*e.event_time)) : json();
  if (e.series) {
    json series = json::object();
    if (e.series->count != 0) series["count"] = e.series->count;
    series["lastObservedTime"] = e.series->last_observed_time
                                     ? json(FormatMicroTime(*e.series->last_observed_time))
                                     : json();
    out["series"] = std::move(series);
  }
  PutString(out, "action", e.action);
  if (e.related) out["related"] = ToJson(*e.related);
  return out;
}

Result<ObjectMeta> ObjectMetaFromJson(const json& in) {
  json canonical;
  std::string err =
      internal::CanonicalizeObject(internal::ObjectMetaSchema(), in, canonical, false);
  if (!err.empty()) return Status::BadRequest("cannot decode ObjectMeta: " + err);
  return MetaFromCanonical(canonical);
}

Result<Lease> LeaseFromJson(const json& in) {
  auto c = Decode(Kind("coordination.k8s.io", "Lease"), in);
  if (!c.ok()) return c.status();
  return LeaseFromCanonical(*c);
}

Result<LeaseCandidate> LeaseCandidateFromJson(const json& in) {
  auto c = Decode(Kind("coordination.k8s.io", "LeaseCandidate"), in);
  if (!c.ok()) return c.status();
  return CandidateFromCanonical(*c);
}

Result<ConfigMap> ConfigMapFromJson(const json& in) {
  auto c = Decode(Kind("", "ConfigMap"), in);
  if (!c.ok()) return c.status();
  return ConfigMapFromCanonical(*c);
}

Result<Namespace> NamespaceFromJson(const json& in) {
  auto c = Decode(Kind("", "Namespace"), in);
  if (!c.ok()) return c.status();
  return NamespaceFromCanonical(*c);
}

Result<Event> EventFromJson(const json& in) {
  auto c = Decode(Kind("", "Event"), in);
  if (!c.ok()) return c.status();
  return EventFromCanonical(*c);
}

Result<LeaseList> LeaseListFromJson(const json& in) {
  return ListFromJson<Lease>(Kind("coordination.k8s.io", "Lease"), in, LeaseFromCanonical);
}

Result<LeaseCandidateList> LeaseCandidateListFromJson(const json& in) {
  return ListFromJson<LeaseCandidate>(Kind("coordination.k8s.io", "LeaseCandidate"), in,
                                      CandidateFromCanonical);
}

Result<ConfigMapList> ConfigMapListFromJson(const json& in) {
  return ListFromJson<ConfigMap>(Kind("", "ConfigMap"), in, ConfigMapFromCanonical);
}

Result<EventList> EventListFromJson(const json& in) {
  return ListFromJson<Event>(Kind("", "Event"), in, EventFromCanonical);
}

Result<NamespaceList> NamespaceListFromJson(const json& in) {
  return ListFromJson<Namespace>(Kind("", "Namespace"), in, NamespaceFromCanonical);
}

}  // namespace tenure::api
