// Field ownership of server-side apply (structured-merge-diff's merge.Updater): which manager
// owns which fields after an update or an apply, the conflicts an apply meets, and the fields an
// applier gives up that no one else owns, removed from the object.
//
// Managers are keyed by their identifier (field_manager.h builds them); each owns a FieldSet at
// the API version it wrote with. Comparisons for a manager of another version convert both
// objects to that version first (KindVersions); a manager whose version the kind no longer has
// is dropped. Pure functions of their arguments.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/field_set.h"
#include "server/typed_value.h"
#include "tenure/status.h"

namespace tenure::server {

struct VersionedSet {
  FieldSet set;
  std::string api_version;  // "coordination.k8s.io/v1"
  bool applied = false;     // operation Apply (else Update)
};
using ManagerSets = std::map<std::string, VersionedSet>;

// The API versions of one kind that managers may have written with.
class KindVersions {
 public:
  virtual ~KindVersions() = default;
  // `object` at `api_version`; nullopt when the kind has no such version.
  virtual std::optional<nlohmann::json> Convert(const nlohmann::json& object,
                                                std::string_view api_version) const = 0;
  // The shape of the kind at `api_version` (one Convert succeeds for).
  virtual Shape ShapeAt(std::string_view api_version) const = 0;
};

struct Conflict {
  std::string manager;  // identifier
  FieldPath path;
};

class StructuredMerge {
 public:
  // `ignored`: by API version, fields no manager is given or conflicts on (the strategy's reset
  // fields, such as a Namespace's status).
  StructuredMerge(const KindVersions& versions, std::map<std::string, FieldSet> ignored);

  // The managers after `manager` (at `api_version`) wrote `new_object` over `live`: it takes
  // every field it added or changed from the others, and fields removed leave every manager.
  ManagerSets Update(const nlohmann::json& live, const nlohmann::json& new_object,
                     std::string_view api_version, ManagerSets managers,
                     const std::string& manager) const;

  struct Applied {
    std::optional<nlohmann::json> object;  // nullopt: the apply changes nothing
    ManagerSets managers;
  };
  // `config` applied to `live` by `manager`: merged in, fields it applied before and leaves out
  // now removed unless another manager owns them. Fields another manager owns that the apply
  // changes are conflicts: without `force` the apply fails with Reason::kConflict and fills
  // `conflicts`; with it they are taken over.
  // Whether no field is ignored at any version.
  bool ignores_nothing() const { return ignored_.empty(); }

  Result<Applied> Apply(const nlohmann::json& live, const nlohmann::json& config,
                        std::string_view api_version, ManagerSets managers,
                        const std::string& manager, bool force,
                        std::vector<Conflict>* conflicts) const;

 private:
  struct UpdateResult {
    ManagerSets managers;
    Comparison comparison;
  };
  // Conflicts of `workflow`'s write with the other managers; without `force`, returns them.
  std::optional<UpdateResult> TakeOwnership(const nlohmann::json& old_object,
                                            const nlohmann::json& new_object,
                                            std::string_view api_version, ManagerSets managers,
                                            const std::string& workflow, bool force,
                                            std::vector<Conflict>* conflicts) const;
  nlohmann::json Prune(const nlohmann::json& merged, const ManagerSets& managers,
                       const std::string& applying, const VersionedSet* last) const;
  const FieldSet* Ignored(std::string_view api_version) const;

  const KindVersions& versions_;
  std::map<std::string, FieldSet> ignored_;
};

}  // namespace tenure::server
