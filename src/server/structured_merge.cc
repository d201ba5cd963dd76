// StructuredMerge: ownership after updates and applies, conflicts, and the pruning of fields an
// applier gave up.
#include "server/structured_merge.h"

namespace tenure::server {
namespace {

using nlohmann::json;

void Exclude(Comparison& c, const FieldSet* ignored) {
  if (ignored == nullptr || ignored->Empty()) return;
  c.added = c.added.RecursiveDifference(*ignored);
  c.modified = c.modified.RecursiveDifference(*ignored);
  c.removed = c.removed.RecursiveDifference(*ignored);
}

}  // namespace

StructuredMerge::StructuredMerge(const KindVersions& versions,
                                 std::map<std::string, FieldSet> ignored)
    : versions_(versions), ignored_(std::move(ignored)) {}

const FieldSet* StructuredMerge::Ignored(std::string_view api_version) const {
  auto it = ignored_.find(std::string(api_version));
  return it == ignored_.end() ? nullptr : &it->second;
}

std::optional<StructuredMerge::UpdateResult> StructuredMerge::TakeOwnership(
    const json& old_object, const json& new_object, std::string_view api_version,
    ManagerSets managers, const std::string& workflow, bool force,
    std::vector<Conflict>* conflicts) const {
  std::map<std::string, Comparison> by_version;
  Comparison& own = by_version
                        .emplace(std::string(api_version),
                                 Compare(versions_.ShapeAt(api_version), old_object, new_object))
                        .first->second;
  Exclude(own, Ignored(api_version));

  std::map<std::string, FieldSet> conflicting, removed;
  for (auto it = managers.begin(); it != managers.end();) {
    const std::string& manager = it->first;
    const VersionedSet& owned = it->second;
    if (manager == workflow) {
      ++it;
      continue;
    }
    auto found = by_version.find(owned.api_version);
    if (found == by_version.end()) {
      auto old_at = versions_.Convert(old_object, owned.api_version);
      auto new_at = versions_.Convert(new_object, owned.api_version);
      if (!old_at || !new_at) {
        it = managers.erase(it);  // a version the kind no longer has
        continue;
      }
      Comparison c = Compare(versions_.ShapeAt(owned.api_version), *old_at, *new_at);
      Exclude(c, Ignored(owned.api_version));
      found = by_version.emplace(owned.api_version, std::move(c)).first;
    }
    const Comparison& c = found->second;
    FieldSet conflict = owned.set.Intersection(c.modified.Union(c.added));
    if (!conflict.Empty()) conflicting[manager] = std::move(conflict);
    if (!c.removed.Empty()) removed[manager] = c.removed;
    ++it;
  }
  if (!force && !conflicting.empty()) {
    if (conflicts != nullptr) {
      for (const auto& entry : conflicting) {  // (clang 14 does not capture bindings)
        const std::string& manager = entry.first;
        entry.second.Iterate([&](const FieldPath& path) { conflicts->push_back({manager, path}); });
      }
    }
    return std::nullopt;
  }
  for (const auto& [manager, set] : conflicting) {
    managers[manager].set = managers[manager].set.Difference(set);
  }
  for (const auto& [manager, set] : removed) {
    managers[manager].set = managers[manager].set.Difference(set);
  }
  std::erase_if(managers, [](const auto& entry) { return entry.second.set.Empty(); });
  return UpdateResult{std::move(managers), std::move(own)};
}

ManagerSets StructuredMerge::Update(const json& live, const json& new_object,
                                    std::string_view api_version, ManagerSets managers,
                                    const std::string& manager) const {
  auto result = TakeOwnership(live, new_object, api_version, std::move(managers), manager,
                              /*force=*/true, nullptr);
  ManagerSets out = std::move(result->managers);
  const Comparison& c = result->comparison;
  FieldSet owned;
  if (auto it = out.find(manager); it != out.end()) owned = it->second.set;
  FieldSet set = owned.Difference(c.removed).Union(c.modified).Union(c.added);
  if (const FieldSet* ignored = Ignored(api_version)) set = set.RecursiveDifference(*ignored);
  if (set.Empty()) {
    out.erase(manager);
  } else {
    out[manager] = VersionedSet{std::move(set), std::string(api_version), false};
  }
  return out;
}

Result<StructuredMerge::Applied> StructuredMerge::Apply(const json& live, const json& config,
                                                        std::string_view api_version,
                                                        ManagerSets managers,
                                                        const std::string& manager, bool force,
                                                        std::vector<Conflict>* conflicts) const {
  const Shape shape = versions_.ShapeAt(api_version);
  auto merged = Merge(shape, live, config);
  if (!merged.ok()) {
    return Status(Reason::kUnknown, "failed to merge config: " + merged.status().message());
  }
  std::optional<VersionedSet> last;
  if (auto it = managers.find(manager); it != managers.end()) last = it->second;
  FieldSet set = ToFieldSet(shape, config);
  if (const FieldSet* ignored = Ignored(api_version)) set = set.RecursiveDifference(*ignored);
  managers[manager] = VersionedSet{std::move(set), std::string(api_version), true};
  json object = Prune(*merged, managers, manager, last ? &*last : nullptr);
  std::vector<Conflict> found;
  auto result =
      TakeOwnership(live, object, api_version, std::move(managers), manager, force, &found);
  if (!result) {
    if (conflicts != nullptr) *conflicts = std::move(found);
    return Status::Conflict("apply conflicts");
  }
  Applied applied;
  applied.managers = std::move(result->managers);
  if (CompareValues(live, object) != 0) applied.object = std::move(object);
  return applied;
}

json StructuredMerge::Prune(const json& merged, const ManagerSets& managers,
                            const std::string& applying, const VersionedSet* last) const {
  if (last == nullptr || last->set.Empty()) return merged;
  const std::string& version = last->api_version;
  auto converted = versions_.Convert(merged, version);
  if (!converted) return merged;
  const Shape shape = versions_.ShapeAt(version);
  json pruned = RemoveItems(shape, *converted, EnsureNamedFieldsAreMembers(last->set, shape));

  // Add back what any manager owns: remove from the merged object only what neither the pruned
  // object keeps nor anyone owns, version by version (the pruned one first).
  std::map<std::string, FieldSet> owned_at;
  for (const auto& [name, owned] : managers) {
    FieldSet& at = owned_at[owned.api_version];
    at = at.Union(owned.set);
  }
  json merged_at = *converted;
  auto add_back = [&](const std::string& at_version, const FieldSet& owned) {
    auto m = versions_.Convert(merged_at, at_version);
    auto p = versions_.Convert(pruned, at_version);
    if (!m || !p) return;
    const Shape s = versions_.ShapeAt(at_version);
    FieldSet merged_set = EnsureNamedFieldsAreMembers(ToFieldSet(s, *m), s);
    FieldSet keep = EnsureNamedFieldsAreMembers(ToFieldSet(s, *p), s)
                        .Union(EnsureNamedFieldsAreMembers(owned, s));
    merged_at = std::move(*m);
    pruned = RemoveItems(s, merged_at, merged_set.Difference(keep));
  };
  if (auto it = owned_at.find(version); it != owned_at.end()) {
    add_back(version, it->second);
    owned_at.erase(it);
  }
  for (const auto& [at_version, owned] : owned_at) add_back(at_version, owned);

  // Dangling items (in the merged object, owned by no one) stay unless the applier owned them.
  auto pruned_at = versions_.Convert(pruned, version);
  json result = *converted;
  if (pruned_at) {
    FieldSet pruned_set = EnsureNamedFieldsAreMembers(ToFieldSet(shape, *pruned_at), shape);
    FieldSet merged_set = EnsureNamedFieldsAreMembers(ToFieldSet(shape, *converted), shape);
    FieldSet applied_last = EnsureNamedFieldsAreMembers(last->set, shape);
    result = RemoveItems(shape, *converted,
                         merged_set.Difference(pruned_set).Intersection(applied_last));
  }
  auto back = versions_.Convert(result, managers.at(applying).api_version);
  return back ? std::move(*back) : result;
}

}  // namespace tenure::server
