// ElectionRecorder: an elector's callbacks, recorded for tests. The calls in order ("started
// ID", "stopped", "new ID"), each term with its stop token, and counts of started and stopped
// terms. Header-only; thread-safe; it must outlive the electors it is attached to.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "tenure/elector.h"

namespace tenure::testing {

class ElectionRecorder {
 public:
  // Sets all three callbacks to record here.
  void Attach(ElectionCallbacks& callbacks) {
    callbacks.on_started_leading = [this](std::stop_token stop, const LeaderTerm& term) {
      {
        std::lock_guard lock(mu_);
        terms_.push_back(term);
        tokens_.push_back(stop);
      }
      Add("started " + term.identity);
      ++started;
    };
    callbacks.on_stopped_leading = [this] {
      Add("stopped");
      ++stopped;
    };
    callbacks.on_new_leader = [this](const std::string& id) { Add("new " + id); };
  }

  // Appends a line of the test's own to the calls (for the order of events around them).
  void Add(std::string call) {
    std::lock_guard lock(mu_);
    calls_.push_back(std::move(call));
  }
  std::vector<std::string> Calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  // The i-th term started (from 0) and its stop token.
  LeaderTerm Term(size_t i) const {
    std::lock_guard lock(mu_);
    return terms_.at(i);
  }
  std::stop_token Token(size_t i) const {
    std::lock_guard lock(mu_);
    return tokens_.at(i);
  }

  std::atomic<int> started{0};
  std::atomic<int> stopped{0};

 private:
  mutable std::mutex mu_;
  std::vector<std::string> calls_;
  std::vector<LeaderTerm> terms_;
  std::vector<std::stop_token> tokens_;
};

}  // namespace tenure::testing
