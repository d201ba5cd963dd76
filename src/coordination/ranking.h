// Candidate ranking of coordinated leader election, as kube-apiserver's controller ranks
// LeaseCandidates: which strategy applies, and whom OldestEmulationVersion picks.
// Pure functions; versions are strict semver (api::ParseSemVer).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"

namespace tenure::coordination {

inline constexpr std::string_view kOldestEmulationVersion = "OldestEmulationVersion";

struct StrategyChoice {
  std::string strategy;  // of the candidates with the highest binaryVersion
  std::string conflict;  // non-empty when those candidates disagree: the explanation
};

// The strategy of the candidates with the highest binaryVersion (an unparsable binaryVersion
// counts as 0.0.0). Candidates of that version with different strategies are a conflict.
// `candidates` must not be empty.
StrategyChoice PickStrategy(const std::vector<const api::LeaseCandidate*>& candidates);

// <0 when `a` ranks before `b` under OldestEmulationVersion: lower emulationVersion, then lower
// binaryVersion, then older creationTimestamp, then name (so the pick never depends on order).
// Both must have parsable versions.
int CompareOldestEmulationVersion(const api::LeaseCandidate& a, const api::LeaseCandidate& b);

// The best candidate under OldestEmulationVersion, skipping candidates whose emulationVersion or
// binaryVersion does not parse; nullptr when none is left.
const api::LeaseCandidate* PickOldestEmulationVersion(
    const std::vector<const api::LeaseCandidate*>& candidates);

}  // namespace tenure::coordination
