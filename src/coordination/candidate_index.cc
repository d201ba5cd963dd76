// CandidateIndex: the lease each candidate runs for, and the candidates of each lease.
#include "coordination/candidate_index.h"

namespace tenure::coordination {

std::optional<std::string> CandidateIndex::Put(const api::LeaseCandidate& candidate) {
  const std::string& ns = candidate.metadata.namespace_;
  const std::string& name = candidate.metadata.name;
  std::lock_guard lock(mu_);
  std::optional<std::string> left;
  auto [it, added] = lease_of_.try_emplace({ns, name}, candidate.spec.lease_name);
  if (!added) {
    if (it->second == candidate.spec.lease_name) return std::nullopt;
    left = it->second;
    Unlist(ns, *left, name);
    it->second = candidate.spec.lease_name;
  }
  running_[{ns, candidate.spec.lease_name}].insert(name);
  return left;
}

std::optional<std::string> CandidateIndex::Remove(const std::string& namespace_,
                                                  const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = lease_of_.find({namespace_, name});
  if (it == lease_of_.end()) return std::nullopt;
  std::string lease = std::move(it->second);
  lease_of_.erase(it);
  Unlist(namespace_, lease, name);
  return lease;
}

void CandidateIndex::Unlist(const std::string& namespace_, const std::string& lease,
                            const std::string& name) {
  auto running = running_.find({namespace_, lease});
  running->second.erase(name);
  if (running->second.empty()) running_.erase(running);
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
