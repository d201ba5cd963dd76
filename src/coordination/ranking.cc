// PickStrategy and the OldestEmulationVersion ranking of LeaseCandidates.
#include "coordination/ranking.h"

#include "api/validation.h"

namespace tenure::coordination {

namespace {

api::SemVer BinaryOrZero(const api::LeaseCandidate& c) {
  return api::ParseSemVer(c.spec.binary_version).value_or(api::SemVer{});
}

bool VersionsParse(const api::LeaseCandidate& c) {
  return api::ParseSemVer(c.spec.emulation_version) && api::ParseSemVer(c.spec.binary_version);
}

}  // namespace

StrategyChoice PickStrategy(const std::vector<const api::LeaseCandidate*>& candidates) {
  const api::LeaseCandidate* top = nullptr;
  api::SemVer top_version;
  for (const api::LeaseCandidate* c : candidates) {
    api::SemVer v = BinaryOrZero(*c);
    // Among equal versions the first name, so that the message does not depend on order.
    if (top == nullptr || v.Compare(top_version) > 0 ||
        (v.Compare(top_version) == 0 && c->metadata.name < top->metadata.name)) {
      top = c;
      top_version = v;
    }
  }
  StrategyChoice choice{top->spec.strategy, ""};
  const api::LeaseCandidate* other = nullptr;
  for (const api::LeaseCandidate* c : candidates) {
    if (BinaryOrZero(*c).Compare(top_version) != 0 || c->spec.strategy == top->spec.strategy) {
      continue;
    }
    if (other == nullptr || c->metadata.name < other->metadata.name) other = c;
  }
  if (other != nullptr) {
    choice.strategy.clear();
    choice.conflict = "candidates of binary version " + top->spec.binary_version +
                      " disagree: " + top->metadata.name + " (" + top->spec.strategy + ") vs " +
                      other->metadata.name + " (" + other->spec.strategy + ")";
  }
  return choice;
}

int CompareOldestEmulationVersion(const api::LeaseCandidate& a, const api::LeaseCandidate& b) {
  auto version = [](const std::string& text) {
    return api::ParseSemVer(text).value_or(api::SemVer{});
  };
  if (int c = version(a.spec.emulation_version).Compare(version(b.spec.emulation_version))) {
    return c;
  }
  if (int c = version(a.spec.binary_version).Compare(version(b.spec.binary_version))) return c;
  auto created_a = a.metadata.creation_timestamp.value_or(api::Timestamp{});
  auto created_b = b.metadata.creation_timestamp.value_or(api::Timestamp{});
  if (created_a != created_b) return created_a < created_b ? -1 : 1;
  return a.metadata.name.compare(b.metadata.name);
}

const api::LeaseCandidate* PickOldestEmulationVersion(
    const std::vector<const api::LeaseCandidate*>& candidates) {
  const api::LeaseCandidate* best = nullptr;
  for (const api::LeaseCandidate* c : candidates) {
    if (!VersionsParse(*c)) continue;
    if (best == nullptr || CompareOldestEmulationVersion(*c, *best) < 0) best = c;
  }
  return best;
}

}  // namespace tenure::coordination
