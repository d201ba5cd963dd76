// LeaderElectionRecord: what a lock stores, as client-go's resourcelock.LeaderElectionRecord.
#pragma once

#include <chrono>
#include <string>

namespace tenure {

struct LeaderElectionRecord {
  std::string holder_identity;  // "" means nobody holds the lease
  int lease_duration_seconds = 0;
  std::chrono::system_clock::time_point acquire_time{};
  std::chrono::system_clock::time_point renew_time{};
  int leader_transitions = 0;
  std::string strategy;          // coordinated election only
  std::string preferred_holder;  // coordinated election only

  bool operator==(const LeaderElectionRecord&) const = default;
};

}  // namespace tenure
