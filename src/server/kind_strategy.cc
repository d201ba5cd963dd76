// KindStrategy's behaviour for a kind with nothing of its own, and the table of strategies.
#include "server/kind_strategy.h"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "server/namespace_strategy.h"
#include "server/rbac_strategy.h"

namespace tenure::server {
namespace {

using MakeStrategy = std::unique_ptr<KindStrategy> (*)(const api::KindInfo&);

// The kinds whose server behaviour is their own; every other kind gets KindStrategy.
struct OwnStrategy {
  std::string_view group;
  std::string_view resource;
  MakeStrategy make;
};
const OwnStrategy kOwnStrategies[] = {
    {"", "namespaces", &MakeNamespaceStrategy},
    {"rbac.authorization.k8s.io", "rolebindings", &MakeRbacBindingStrategy},
    {"rbac.authorization.k8s.io", "clusterrolebindings", &MakeRbacBindingStrategy},
};

std::map<const api::KindInfo*, std::unique_ptr<KindStrategy>> BuildStrategies() {
  std::map<const api::KindInfo*, std::unique_ptr<KindStrategy>> out;
  for (const api::KindInfo* kind : api::AllKinds()) {
    std::unique_ptr<KindStrategy> strategy;
    for (const OwnStrategy& own : kOwnStrategies) {
      if (own.group == kind->group && own.resource == kind->resource) strategy = own.make(*kind);
    }
    out.emplace(kind, strategy ? std::move(strategy) : std::make_unique<KindStrategy>(*kind));
  }
  return out;
}

}  // namespace

bool KindStrategy::AllowCreateOnUpdate() const { return kind_.allow_create_on_update; }

bool KindStrategy::AllowUnconditionalUpdate() const { return kind_.allow_unconditional_update; }

void KindStrategy::Default(nlohmann::json&) const {}

void KindStrategy::PrepareForCreate(nlohmann::json&) const {}

void KindStrategy::PrepareForUpdate(nlohmann::json&, const nlohmann::json&,
                                    std::string_view) const {}

std::vector<std::string_view> KindStrategy::ResetFields(std::string_view) const { return {}; }

Status KindStrategy::Validate(const nlohmann::json& object) const {
  return api::ValidateCreate(kind_, object);
}

Status KindStrategy::ValidateSubresourceUpdate(std::string_view, const nlohmann::json& object,
                                               const nlohmann::json& old_object) const {
  return ValidateUpdate(object, old_object);
}

Status KindStrategy::ValidateUpdate(const nlohmann::json& object,
                                    const nlohmann::json& old_object) const {
  return api::ValidateUpdate(kind_, object, old_object);
}

bool KindStrategy::UpdateReadsOnlyOldMetadata() const {
  return api::UpdateReadsOnlyOldMetadata(kind_);
}

Status KindStrategy::ValidateDelete(const std::string&) const { return Status::Ok(); }

Result<std::optional<nlohmann::json>> KindStrategy::DeleteInstead(const nlohmann::json&,
                                                                  const Clock&) const {
  return std::optional<nlohmann::json>();
}

nlohmann::json KindStrategy::TableColumns() const { return api::TableColumns(kind_); }

nlohmann::json KindStrategy::TableCells(const nlohmann::json& object,
                                        std::chrono::system_clock::time_point now) const {
  return api::TableCells(kind_, object, now);
}

const KindStrategy& StrategyFor(const api::KindInfo& kind) {
  static const auto* strategies =
      new std::map<const api::KindInfo*, std::unique_ptr<KindStrategy>>(BuildStrategies());
  auto it = strategies->find(&kind);
  if (it == strategies->end()) {
    throw std::invalid_argument("no strategy for kind " + std::string(kind.kind));
  }
  return *it->second;
}

}  // namespace tenure::server
