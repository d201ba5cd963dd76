// CandidateIndex: the lease each candidate runs for, and the candidates of each lease.
#include "coordination/candidate_index.h"

namespace tenure::coordination {

void CandidateIndex::Put(const api::LeaseCandidate& candidate) {
  const std::string& ns = candidate.metadata.namespace_;
  const std::string& name = candidate.metadata.name;
  std::lock_guard lock(mu_);
  auto [it, added] = lease_of_.try_emplace({ns, name}, candidate.spec.lease_name);
  if (!added) {
    if (it->second == candidate.spec.lease_name) return;
    auto old = running_.find({ns, it->second});
    old->second.erase(name);
    if (old->second.empty()) running_.erase(old);
    it->second = candidate.spec.lease_name;
  }
  running_[{ns, candidate.spec.lease_name}].insert(name);
}

void CandidateIndex::Remove(const std::string& namespace_, const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = lease_of_.find({namespace_, name});
  if (it == lease_of_.end()) return;
  auto running = running_.find({namespace_, it->second});
  running->second.erase(name);
  if (running->second.empty()) running_.erase(running);
  lease_of_.erase(it);
}

void CandidateIndex::Clear() {
  std::lock_guard lock(mu_);
  lease_of_.clear();
  running_.clear();
}

bool CandidateIndex::HasCandidates(const std::string& namespace_, const std::string& lease) const {
  std::lock_guard lock(mu_);
  return running_.count({namespace_, lease}) > 0;
}

std::vector<std::string> CandidateIndex::CandidatesOf(const std::string& namespace_,
                                                      const std::string& lease) const {
  std::lock_guard lock(mu_);
  auto it = running_.find({namespace_, lease});
  if (it == running_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace tenure::coordination
