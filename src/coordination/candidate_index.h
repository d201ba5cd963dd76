// CandidateIndex: which LeaseCandidates run for which lease, kept from the candidate cache's
// events. Every Lease event of the cluster asks whether that lease has candidates, and every
// reconcile asks which: the index answers both without reading each cached candidate again.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/types.h"

namespace tenure::coordination {

class CandidateIndex {
 public:
  // A candidate added or changed: it runs for metadata.namespace/spec.leaseName now. The lease
  // it ran for before, when that was another one.
  std::optional<std::string> Put(const api::LeaseCandidate& candidate);
  // A candidate gone (or no longer readable); the lease it ran for, if it was known.
  std::optional<std::string> Remove(const std::string& namespace_, const std::string& name);
  void Clear();

  // Whether any candidate runs for the lease `name` in `namespace_`.
  bool HasCandidates(const std::string& namespace_, const std::string& lease) const;
  // The names of the candidates running for that lease, sorted.
  std::vector<std::string> CandidatesOf(const std::string& namespace_,
                                        const std::string& lease) const;

 private:
  // Takes `name` off the candidates of `lease` (mu_ held).
  void Unlist(const std::string& namespace_, const std::string& lease, const std::string& name);
  using Key = std::pair<std::string, std::string>;  // namespace, name
  mutable std::mutex mu_;
  std::map<Key, std::string> lease_of_;           // candidate -> the lease it runs for
  std::map<Key, std::set<std::string>> running_;  // lease -> its candidates' names
};

}  // namespace tenure::coordination
