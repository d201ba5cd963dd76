// FieldManager: managedFields on every write, server-side apply, and their kube details.
#include "server/field_manager.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "api/canonicalize.h"
#include "api/client_json.h"
#include "api/description.h"
#include "api/field_manager_name.h"
#include "api/time.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr size_t kMaxUpdateManagers = 10;
constexpr std::string_view kCurrentOperation = "current-operation";
constexpr std::string_view kBeforeFirstApply = "before-first-apply";
constexpr std::string_view kAncientChanges = "ancient-changes";
constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
// apimachinery's TotalAnnotationSizeLimitB.
constexpr size_t kMaxAnnotationsBytes = 256 * 1024;

const json* MetadataOf(const json& object) {
  auto it = object.find("metadata");
  return it != object.end() && it->is_object() ? &*it : nullptr;
}

const json* ManagedFieldsOf(const json& object) {
  const json* meta = MetadataOf(object);
  if (meta == nullptr) return nullptr;
  auto it = meta->find("managedFields");
  return it == meta->end() || it->is_null() ? nullptr : &*it;
}

void SetManagedFields(json& object, json entries) {
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (entries.is_null() || entries.empty()) {
    meta.erase("managedFields");
  } else {
    meta["managedFields"] = std::move(entries);
  }
}

std::string StringAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string MetadataField(const json& object, const char* key) {
  const json* meta = MetadataOf(object);
  return meta == nullptr ? std::string() : StringAt(*meta, key);
}

// `[]`, or one entry with nothing in it: the request clears the managedFields.
bool IsReset(const json* entries) {
  if (entries == nullptr || !entries->is_array()) return false;
  if (entries->empty()) return true;
  return entries->size() == 1 && (*entries)[0].is_object() && (*entries)[0].empty();
}

// A manager identifier: the entry's JSON without its time and fields (and without the version
// of an Apply entry, so that an applier is one manager whatever version it applies with).
std::string BuildIdentifier(std::string_view manager, std::string_view operation,
                            std::string_view api_version, std::string_view subresource) {
  std::string out = "{";
  auto add = [&](const char* key, std::string_view value) {
    if (value.empty()) return;
    if (out.size() > 1) out += ',';
    out += '"';
    out += key;
    out += "\":";
    out += json(std::string(value)).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  add("manager", manager);
  add("operation", operation);
  if (operation != "Apply") add("apiVersion", api_version);
  add("subresource", subresource);
  return out + "}";
}

// The entry an identifier names (manager, operation, apiVersion, subresource). The same few
// identifiers come back on every write of an object: they are parsed once per thread.
const json& ParseIdentifier(const std::string& identifier) {
  thread_local std::unordered_map<std::string, json> parsed;
  if (auto it = parsed.find(identifier); it != parsed.end()) return it->second;
  if (identifier.size() > 512) {  // not one of the usual few: not kept
    thread_local json once;
    once = json::parse(identifier, nullptr, /*allow_exceptions=*/false);
    if (!once.is_object()) once = json::object();
    return once;
  }
  if (parsed.size() >= 4096) parsed.clear();
  json entry = json::parse(identifier, nullptr, /*allow_exceptions=*/false);
  if (!entry.is_object()) entry = json::object();
  return parsed.emplace(identifier, std::move(entry)).first->second;
}

int64_t UnixSeconds(const std::string& time) {
  if (time.empty()) return 0;
  auto t = api::ParseTime(time);
  if (!t) return 0;
  return std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
}

// The entries in kube's order: operation, time in seconds, manager, apiVersion, subresource.
json SortedEntries(std::vector<json> entries) {
  using Key = std::tuple<std::string, int64_t, std::string, std::string, std::string>;
  std::vector<std::pair<Key, size_t>> order;
  order.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const json& e = entries[i];
    order.emplace_back(
        Key{StringAt(e, "operation"), UnixSeconds(StringAt(e, "time")), StringAt(e, "manager"),
            StringAt(e, "apiVersion"), StringAt(e, "subresource")},
        i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  json out = json::array();
  for (const auto& [key, i] : order) out.push_back(std::move(entries[i]));
  return out;
}

// Whether the fieldsV1 of an entry has `path` as a member.
bool OwnsPath(const json& fields, const FieldPath& path) {
  const json* node = &fields;
  for (size_t i = 0; i < path.size(); ++i) {
    auto it = node->find(Serialize(path[i]));
    if (it == node->end() || !it->is_object()) return false;
    if (i + 1 == path.size()) return it->empty() || it->contains(".");
    node = &*it;
  }
  return false;
}

// kube's printManager: "\"name\"", with its subresource, and the version of an Update manager.
std::string PrintManager(const std::string& identifier) {
  const json& entry = ParseIdentifier(identifier);
  if (entry.empty()) return api::GoQuote(identifier);
  std::string out = api::GoQuote(StringAt(entry, "manager"));
  if (std::string sub = StringAt(entry, "subresource"); !sub.empty()) {
    out += " with subresource " + api::GoQuote(sub);
  }
  if (StringAt(entry, "operation") == "Update") out += " using " + StringAt(entry, "apiVersion");
  return out;
}

// The fields managers never own (kube's stripMetaManager).
const FieldSet& NeverOwned() {
  static const FieldSet set = [] {
    FieldSet s;
    for (const char* top : {"apiVersion", "kind", "metadata"}) {
      s.InsertMember(PathElement::Field(top));
    }
    FieldSet& meta = s.Descend(PathElement::Field("metadata"));
    for (const char* field : {"name", "namespace", "creationTimestamp", "selfLink", "uid",
                              "clusterName", "generation", "managedFields", "resourceVersion"}) {
      meta.InsertMember(PathElement::Field(field));
    }
    return s;
  }();
  return set;
}

void StripNeverOwned(ManagerSets& sets, const std::string& manager) {
  auto it = sets.find(manager);
  if (it == sets.end()) return;
  it->second.set = it->second.set.Difference(NeverOwned());
  if (it->second.set.Empty()) sets.erase(it);
}

std::string GroupVersionKindText(std::string_view api_version, std::string_view kind) {
  // schema.GroupVersionKind.String(): "group/version, Kind=K" ("/v1, Kind=ConfigMap").
  std::string gv(api_version);
  if (gv.find('/') == std::string::npos) gv = "/" + gv;
  return gv + ", Kind=" + std::string(kind);
}

}  // namespace

std::string ManagerOrUserAgent(std::string_view field_manager, std::string_view user_agent) {
  if (!field_manager.empty()) return std::string(field_manager);
  return api::PrintablePrefix(user_agent.substr(0, user_agent.find('/')),
                              api::kFieldManagerMaxLength);
}

api::FieldErrors FieldManagerErrors(std::string_view field_manager) {
  return api::ValidateFieldManager(field_manager, "fieldManager");
}

// The versions of a kind and of the kind it shares storage with (core/v1 and events.k8s.io/v1
// Events): an object converts between them through the stored form.
class FieldManager::Versions : public KindVersions {
 public:
  explicit Versions(const api::KindInfo& kind) {
    family_.push_back(&kind);
    if (kind.stored_as != nullptr) family_.push_back(kind.stored_as);
    for (const api::KindInfo* k : api::AllKinds()) {
      if (k->stored_as == &kind) family_.push_back(k);
    }
  }

  std::optional<json> Convert(const json& object, std::string_view api_version) const override {
    const api::KindInfo* to = KindAt(api_version);
    if (to == nullptr) return std::nullopt;
    const api::KindInfo* from = KindAt(StringAt(object, "apiVersion"));
    if (from == nullptr) from = family_.front();
    json out;
    if (from == to) {
      out = object;
    } else if (from->stored_as == to && from->to_storage != nullptr) {
      out = from->to_storage(object);
    } else if (to->stored_as == from && to->from_storage != nullptr) {
      out = to->from_storage(object);
    } else {
      return std::nullopt;
    }
    if (out.is_object()) out["apiVersion"] = std::string(api_version);
    return out;
  }

  Shape ShapeAt(std::string_view api_version) const override {
    const api::KindInfo* kind = KindAt(api_version);
    return Shape::Of(*api::Describe(kind != nullptr ? *kind : *family_.front()).object);
  }

 private:
  const api::KindInfo* KindAt(std::string_view api_version) const {
    for (const api::KindInfo* k : family_) {
      for (std::string_view v : k->versions) {
        if (k->api_version(v) == api_version) return k;
      }
    }
    return nullptr;
  }

  std::vector<const api::KindInfo*> family_;
};

FieldManager::FieldManager(const api::KindInfo& kind, std::string_view version,
                           std::string subresource, std::vector<std::string_view> reset_fields,
                           const Clock& clock)
    : kind_(kind),
      api_version_(kind.api_version(version)),
      subresource_(std::move(subresource)),
      clock_(clock),
      versions_(std::make_unique<Versions>(kind)) {
  std::map<std::string, FieldSet> ignored;
  if (!reset_fields.empty()) {
    FieldSet& set = ignored[api_version_];
    for (std::string_view f : reset_fields) set.InsertMember(PathElement::Field(std::string(f)));
  }
  merge_ = std::make_unique<StructuredMerge>(*versions_, std::move(ignored));
}

FieldManager::~FieldManager() = default;

json FieldManager::EmptyObject() const {
  json typed = {{"apiVersion", api_version_}, {"kind", std::string(kind_.kind)}};
  auto empty = api::Canonicalize(kind_, typed, api::DecodeOptions{});
  return empty.ok() ? std::move(*empty) : typed;
}

std::string FieldManager::Identifier(std::string_view manager, bool apply) const {
  return BuildIdentifier(manager.empty() ? "unknown" : manager, apply ? "Apply" : "Update",
                         api_version_, subresource_);
}

Result<FieldManager::Managed> FieldManager::Decode(const json* entries) {
  Managed managed;
  if (entries == nullptr) return managed;
  if (!entries->is_array()) return Status::BadRequest("managedFields must be a list");
  for (size_t i = 0; i < entries->size(); ++i) {
    const json& e = (*entries)[i];
    if (!e.is_object()) return Status::BadRequest("managedFields entry must be an object");
    const std::string operation = StringAt(e, "operation");
    if (operation != "Apply" && operation != "Update") {
      return Status::BadRequest("operation must be `Apply` or `Update`");
    }
    const std::string api_version = StringAt(e, "apiVersion");
    if (api_version.empty()) return Status::BadRequest("apiVersion must not be empty");
    const std::string type = StringAt(e, "fieldsType");
    if (type.empty()) {
      return Status::BadRequest("missing fieldsType in managed fields entry " + std::to_string(i));
    }
    if (type != "FieldsV1") {
      return Status::BadRequest("invalid fieldsType " + api::GoQuote(type) +
                                " in managed fields entry " + std::to_string(i));
    }
    const std::string id =
        BuildIdentifier(StringAt(e, "manager"), operation, api_version, StringAt(e, "subresource"));
    auto fields = e.find("fieldsV1");
    auto set =
        FieldSet::FromJson(fields == e.end() || fields->is_null() ? json::object() : *fields);
    if (!set.ok()) return set.status();
    managed.sets[id] = VersionedSet{std::move(*set), api_version, operation == "Apply"};
    if (std::string time = StringAt(e, "time"); !time.empty()) managed.times[id] = time;
  }
  return managed;
}

json FieldManager::Encode(const Managed& managed) {
  if (managed.sets.empty()) return nullptr;
  std::vector<json> entries;
  for (const auto& [id, owned] : managed.sets) {
    json entry = ParseIdentifier(id);
    entry["apiVersion"] = owned.api_version;
    if (owned.applied) entry["operation"] = "Apply";
    entry["fieldsType"] = "FieldsV1";
    entry["fieldsV1"] = owned.set.ToJson();
    if (auto t = managed.times.find(id); t != managed.times.end()) entry["time"] = t->second;
    entries.push_back(std::move(entry));
  }
  return SortedEntries(std::move(entries));
}

void FieldManager::CapUpdateManagers(Managed& managed) const {
  std::vector<std::string> updaters;
  for (const auto& [id, owned] : managed.sets) {
    if (!owned.applied) updaters.push_back(id);
  }
  if (updaters.size() <= kMaxUpdateManagers) return;
  auto seconds = [&](const std::string& id) {
    auto t = managed.times.find(id);
    return t == managed.times.end() ? int64_t{0} : UnixSeconds(t->second);
  };
  std::sort(updaters.begin(), updaters.end(), [&](const std::string& a, const std::string& b) {
    const int64_t x = seconds(a), y = seconds(b);
    return x != y ? x < y : a < b;
  });
  // The oldest are merged into one bucket per API version until at most the cap are left.
  std::map<std::string, std::string> first_of_version;
  size_t length = updaters.size();
  for (size_t i = 0; i < updaters.size() && length > kMaxUpdateManagers; ++i) {
    const std::string& manager = updaters[i];
    const VersionedSet owned = managed.sets[manager];
    const std::string bucket = BuildIdentifier(kAncientChanges, "Update", owned.api_version, "");
    auto first = first_of_version.find(owned.api_version);
    if (first == first_of_version.end()) {
      first_of_version[owned.api_version] = manager;
      continue;
    }
    // (kube would merge an older bucket into itself and drop it: it is kept.)
    if (manager == bucket) continue;
    if (!managed.sets.contains(bucket)) {
      managed.sets[bucket] = managed.sets[first->second];
      managed.sets.erase(first->second);
    }
    managed.sets[bucket].set = owned.set.Union(managed.sets[bucket].set);
    managed.sets.erase(manager);
    --length;
    if (auto t = managed.times.find(manager); t != managed.times.end()) {
      managed.times[bucket] = t->second;
    } else {
      managed.times.erase(bucket);
    }
  }
}

void FieldManager::UpdateManaged(const json& live, const json& object, std::string_view manager,
                                 Managed& managed) const {
  const std::string id = Identifier(manager, /*apply=*/false);
  const std::string self(kCurrentOperation);
  ManagerSets sets = merge_->Update(live, object, api_version_, std::move(managed.sets), self);
  StripNeverOwned(sets, self);
  if (auto it = sets.find(self); it != sets.end()) {
    VersionedSet current = std::move(it->second);
    sets.erase(it);
    if (auto previous = sets.find(id); previous != sets.end()) {
      current.set = current.set.Union(previous->second.set);
    }
    sets[id] = std::move(current);
    managed.times[id] = api::FormatTime(clock_.wall_now());
  }
  managed.sets = std::move(sets);
  CapUpdateManagers(managed);
}

bool FieldManager::UpdateOwnFields(const json& live, json& object, std::string_view manager) const {
  if (!subresource_.empty() || !merge_->ignores_nothing()) return false;
  const json* live_entries = ManagedFieldsOf(live);
  if (live_entries == nullptr || !live_entries->is_array() || live_entries->empty() ||
      live_entries->size() > kMaxUpdateManagers) {
    return false;
  }
  if (const json* sent = ManagedFieldsOf(object); sent != nullptr && *sent != *live_entries) {
    return false;
  }
  const std::string name = manager.empty() ? "unknown" : std::string(manager);
  std::optional<size_t> own;
  for (size_t i = 0; i < live_entries->size(); ++i) {
    const json& e = (*live_entries)[i];
    if (!e.is_object()) return false;
    const std::string operation = StringAt(e, "operation");
    // Every entry at the request's version: other versions are compared after conversion.
    if ((operation != "Apply" && operation != "Update") ||
        StringAt(e, "apiVersion") != api_version_ || StringAt(e, "fieldsType") != "FieldsV1" ||
        !e.contains("fieldsV1") || !e["fieldsV1"].is_object()) {
      return false;  // the full path decides what to make of it
    }
    if (operation == "Update" && StringAt(e, "manager") == name &&
        StringAt(e, "apiVersion") == api_version_ && StringAt(e, "subresource").empty()) {
      own = i;
    }
  }
  if (!own) return false;
  json entries = *live_entries;
  SetManagedFields(object, nullptr);
  const Comparison c = Compare(versions_->ShapeAt(api_version_), live, object);
  bool ok = true;
  bool takes_fields = false;
  auto owned_by_others = [&](const FieldPath& p) {
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i != *own && OwnsPath(entries[i]["fieldsV1"], p)) return true;
    }
    return false;
  };
  auto written = [&](const FieldPath& p) {
    if (!ok) return;
    if (owned_by_others(p)) {
      ok = false;
    } else if (NeverOwned().Has(p)) {
      // The full computation takes it from the writer's own entry too (never given back).
      ok = !OwnsPath(entries[*own]["fieldsV1"], p);
    } else {
      takes_fields = true;
      ok = OwnsPath(entries[*own]["fieldsV1"], p);
    }
  };
  c.added.Iterate(written);
  c.modified.Iterate(written);
  c.removed.Iterate([&](const FieldPath& p) {
    if (ok && (owned_by_others(p) || OwnsPath(entries[*own]["fieldsV1"], p))) ok = false;
  });
  if (!ok) {
    SetManagedFields(object, *live_entries);  // as sent (or as stored): the full path decides
    return false;
  }
  if (takes_fields) {
    entries[*own]["time"] = api::FormatTime(clock_.wall_now());
    // Moved out, not copied (get<> would copy every entry's fieldsV1 tree).
    entries = SortedEntries(std::move(*entries.get_ptr<json::array_t*>()));
  }
  SetManagedFields(object, std::move(entries));
  return true;
}

void FieldManager::Update(const json& live, json& object, std::string_view manager) const {
  // The common write, a controller renewing the fields it owns, without decoding the entries.
  if (UpdateOwnFields(live, object, manager)) return;
  const json* live_entries = ManagedFieldsOf(live);
  const json* new_entries = ManagedFieldsOf(object);
  auto live_managed = [&] {
    auto d = Decode(live_entries);
    return d.ok() ? std::move(*d) : Managed{};
  };
  Managed managed;
  if (!subresource_.empty()) {
    managed = live_managed();  // a subresource never writes managedFields
  } else if (IsReset(new_entries)) {
    managed = Managed{};
  } else if (auto d = Decode(new_entries); d.ok() && !d->sets.empty()) {
    managed = std::move(*d);
  } else {
    managed = live_managed();  // a client that does not know managedFields keeps them
  }
  SetManagedFields(object, nullptr);
  // An existing object whose fields no one manages stays so until it is applied to.
  if (!managed.sets.empty() || MetadataField(live, "uid").empty()) {
    UpdateManaged(live, object, manager, managed);
  }
  SetManagedFields(object, Encode(managed));
}

Result<json> FieldManager::ApplyManaged(const json& live, const json& config,
                                        std::string_view manager, bool force, Managed& managed,
                                        std::vector<Conflict>* conflicts) const {
  if (managed.sets.empty()) {
    // The first apply to an object no one manages: its fields so far belong to
    // "before-first-apply".
    json object = live;
    SetManagedFields(object, nullptr);
    UpdateManaged(EmptyObject(), object, kBeforeFirstApply, managed);
  }
  if (const json* meta = MetadataOf(config);
      meta != nullptr && meta->contains("managedFields") && !(*meta)["managedFields"].is_null()) {
    return Status::BadRequest("metadata.managedFields must be nil");
  }
  const Shape shape = versions_->ShapeAt(api_version_);
  if (std::string invalid = ValidateTyped(shape, config); !invalid.empty()) {
    return Status(Reason::kUnknown,
                  "failed to create typed patch object (" + MetadataField(config, "namespace") +
                      "/" + MetadataField(config, "name") + "; " +
                      GroupVersionKindText(api_version_, kind_.kind) + "): " + invalid);
  }
  const std::string id = Identifier(manager, /*apply=*/true);
  auto applied = merge_->Apply(live, config, api_version_, managed.sets, id, force, conflicts);
  if (!applied.ok()) return applied.status();
  managed.sets = std::move(applied->managers);
  StripNeverOwned(managed.sets, id);
  json object;
  if (applied->object) {
    managed.times[id] = api::FormatTime(clock_.wall_now());
    object = std::move(*applied->object);
  } else {
    object = live;
  }
  SetManagedFields(object, nullptr);
  return object;
}

Result<json> FieldManager::ApplyOrUpgrade(const json& live, const json& config,
                                          std::string_view manager, bool force,
                                          Managed& managed) const {
  const Managed before = managed;
  std::vector<Conflict> conflicts;
  auto object = ApplyManaged(live, config, manager, force, managed, &conflicts);
  if (object.ok() || conflicts.empty() || manager != "kubectl") {
    if (!object.ok() && !conflicts.empty()) return ConflictError(conflicts);
    return object;
  }
  // kubectl moving an object from client-side to server-side apply: the conflicts on fields its
  // last client-side apply set, with the values they still have, are not conflicts.
  FieldSet allowed;
  bool upgrade = false;
  if (const json* meta = MetadataOf(live); meta != nullptr) {
    auto annotations = meta->find("annotations");
    std::string text;
    if (annotations != meta->end() && annotations->is_object())
      text = StringAt(*annotations, kLastApplied.data());
    json last = text.empty() || api::JsonNesting(text) > api::kMaxJsonNesting
                    ? json()
                    : json::parse(text, nullptr, false);
    if (last.is_object() && StringAt(last, "apiVersion") == api_version_) {
      const Shape shape = versions_->ShapeAt(api_version_);
      if (ValidateTyped(shape, last).empty()) {
        Comparison c = Compare(shape, last, live);
        allowed = ToFieldSet(shape, last)
                      .Difference(c.modified)
                      .Difference(c.added)
                      .Difference(c.removed);
        upgrade = true;
      }
    }
  }
  if (upgrade) {
    std::vector<Conflict> remaining;
    for (const Conflict& c : conflicts) {
      if (!allowed.Has(c.path)) remaining.push_back(c);
    }
    if (remaining.empty()) {
      managed = before;
      return ApplyManaged(live, config, manager, /*force=*/true, managed, nullptr);
    }
    conflicts = std::move(remaining);
  }
  return ConflictError(conflicts);
}

Result<json> FieldManager::Apply(const json& live, const json& config, std::string_view manager,
                                 bool force) const {
  if (StringAt(config, "apiVersion") != api_version_ || StringAt(config, "kind") != kind_.kind) {
    return Status::BadRequest(
        "invalid object type: " +
        GroupVersionKindText(StringAt(config, "apiVersion"), StringAt(config, "kind")));
  }
  auto decoded = Decode(ManagedFieldsOf(live));
  if (!decoded.ok()) {
    return Status(Reason::kUnknown,
                  "failed to decode managed fields: " + decoded.status().message());
  }
  Managed managed = std::move(*decoded);
  auto object = ApplyOrUpgrade(live, config, manager, force, managed);
  if (!object.ok()) return object;
  if (manager == "kubectl") {
    // kubectl's server-side apply keeps a client-side apply annotation up to date, so that the
    // object can go back to client-side apply.
    const json* meta = MetadataOf(*object);
    if (meta != nullptr && meta->contains("annotations") && (*meta)["annotations"].is_object() &&
        !StringAt((*meta)["annotations"], kLastApplied.data()).empty()) {
      json last = config;
      if (last.contains("metadata") && last["metadata"].is_object() &&
          last["metadata"].contains("annotations") && last["metadata"]["annotations"].is_object()) {
        last["metadata"]["annotations"].erase(std::string(kLastApplied));
      }
      json& annotations = (*object)["metadata"]["annotations"];
      annotations[std::string(kLastApplied)] =
          last.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
      // As kube's SetLastApplied: left out when it would make the annotations too large.
      size_t total = 0;
      for (auto it = annotations.begin(); it != annotations.end(); ++it) {
        total += it.key().size() + (it->is_string() ? it->get_ref<const std::string&>().size() : 0);
      }
      if (total > kMaxAnnotationsBytes) annotations.erase(std::string(kLastApplied));
    }
  }
  SetManagedFields(*object, Encode(managed));
  return object;
}

Status FieldManager::ConflictError(const std::vector<Conflict>& conflicts) const {
  std::vector<StatusCause> causes;
  for (const Conflict& c : conflicts) {
    causes.push_back(
        {"FieldManagerConflict", "conflict with " + PrintManager(c.manager), ToString(c.path)});
  }
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " + PrintManager(conflicts[0].manager) +
              ": " + ToString(conflicts[0].path);
  } else {
    std::map<std::string, std::vector<std::string>> by_manager;
    for (const Conflict& c : conflicts) by_manager[c.manager].push_back(ToString(c.path));
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
    bool first = true;
    for (const auto& [manager, paths] : by_manager) {
      if (!first) message += "\n";
      first = false;
      message += "conflicts with " + PrintManager(manager) + ":";
      for (const std::string& p : paths) message += "\n- " + p;
    }
  }
  return Status(Reason::kConflict, std::move(message), std::move(causes));
}

namespace {

// Whether two objects have the same members, as `same_member(key, value, other)` judges each
// (`other` null for a member only one of them has).
bool SameMembersBut(const json& a, const json& b, const auto& same_member) {
  if (!a.is_object() || !b.is_object()) return a == b;
  auto ia = a.begin(), ib = b.begin();
  // Both are sorted by key (nlohmann's object is a std::map): walk them side by side.
  while (ia != a.end() || ib != b.end()) {
    if (ia != a.end() && ib != b.end() && ia.key() == ib.key()) {
      if (!same_member(ia.key(), ia.value(), &ib.value())) return false;
      ++ia;
      ++ib;
      continue;
    }
    // A member on one side only: equal only when it is one that does not count.
    const bool from_a = ib == b.end() || (ia != a.end() && ia.key() < ib.key());
    auto& it = from_a ? ia : ib;
    if (!same_member(it.key(), it.value(), nullptr)) return false;
    ++it;
  }
  return true;
}

// Whether `object` and `live` are equal once the managedFields entries' times and
// metadata.resourceVersion are left out, compared in place (a renewal differs in its spec, and
// finds so without copying either object).
bool SameButManagedFieldsTimes(const json& object, const json& live) {
  auto entry_member = [](const std::string& key, const json& a, const json* b) {
    if (key == "time") return true;
    return b != nullptr && a == *b;
  };
  auto metadata_member = [&](const std::string& key, const json& a, const json* b) {
    if (key == "resourceVersion") return true;
    if (b == nullptr) return false;
    if (key != "managedFields" || !a.is_array() || !b->is_array() || a.size() != b->size()) {
      return a == *b;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameMembersBut(a[i], (*b)[i], entry_member)) return false;
    }
    return true;
  };
  return SameMembersBut(object, live, [&](const std::string& key, const json& a, const json* b) {
    if (b == nullptr) return false;
    return key == "metadata" ? SameMembersBut(a, *b, metadata_member) : a == *b;
  });
}

}  // namespace

void KeepManagedFieldsTimesOfNoOp(const json& live, json& object) {
  const json* old_entries = ManagedFieldsOf(live);
  const json* new_entries = ManagedFieldsOf(object);
  if (old_entries == nullptr || new_entries == nullptr || !old_entries->is_array() ||
      !new_entries->is_array() || old_entries->size() != new_entries->size() ||
      new_entries->empty()) {
    return;
  }
  // Most writes move no time (or change more than times): decided before any copy.
  bool times_changed = false;
  for (size_t i = 0; i < new_entries->size(); ++i) {
    const json& entry = (*new_entries)[i];
    const json& old_entry = (*old_entries)[i];
    if (!entry.is_object() || !old_entry.is_object()) return;
    if (StringAt(entry, "time") != StringAt(old_entry, "time")) times_changed = true;
  }
  if (!times_changed || !SameButManagedFieldsTimes(object, live)) return;
  json& entries = object["metadata"]["managedFields"];
  for (size_t i = 0; i < entries.size(); ++i) {
    const json& old_entry = (*old_entries)[i];
    json& entry = entries[i];
    entry.erase("time");
    if (old_entry.contains("time")) entry["time"] = old_entry["time"];
  }
}

}  // namespace tenure::server
