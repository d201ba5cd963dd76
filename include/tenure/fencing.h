// FencingTokenChecker: what a downstream system keeps to reject a deposed leader. Each term of
// an election has a fencing token (LeaderTerm::fencing_token) that is larger than every earlier
// term's. A resource that remembers the highest token it has accepted and refuses smaller ones
// can never be written by a leader whose term has been superseded, whatever the timing.
// Thread-safe. Persist highest() with the resource if it must survive restarts.
#pragma once

#include <atomic>
#include <cstdint>

namespace tenure {

class FencingTokenChecker {
 public:
  explicit FencingTokenChecker(uint64_t highest_accepted = 0) : highest_(highest_accepted) {}

  // Accepts a write carrying `token` when no larger token has been accepted; remembers it.
  bool Accept(uint64_t token) {
    uint64_t current = highest_.load();
    while (token >= current) {
      if (highest_.compare_exchange_weak(current, token)) return true;
    }
    return false;
  }
  uint64_t highest() const { return highest_.load(); }

 private:
  std::atomic<uint64_t> highest_;
};

}  // namespace tenure
