// HolderTimeline: turns the successive states of one Lease (as a watch delivers them) into a
// timeline of holder changes, each with how long the previous holder held the lease, or how
// long the lease was without a holder. Used by `tenure watch lease` and `tenure demo`.
//
// Durations are measured between observations on the caller's clock; the first holder's start
// is its acquireTime when the lease has one. Not thread-safe: feed it from one thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "api/types.h"
#include "cli/output_format.h"

namespace tenure::cli {

struct HolderChange {
  enum class Kind {
    kInitial,  // the first observation: the state the timeline starts from
    kChanged,  // the holder changed (an empty identity is "no holder")
    kCreated,  // the lease appeared (after being absent)
    kDeleted,  // the lease disappeared
  };
  Kind kind = Kind::kInitial;
  api::Timestamp at{};
  bool exists = true;  // the lease exists after this change
  std::string from;    // "" : no holder (or no lease)
  std::string to;
  // How long `from` held the lease, or the lease was without a holder, until `at`.
  std::optional<std::chrono::nanoseconds> previous_for;
  bool previous_for_is_lower_bound = false;  // its start was before the first observation
  bool taken_after_expiry = false;           // `from`'s lease had expired: a takeover
  int32_t transitions = 0;                   // leaseTransitions after the change
};

class HolderTimeline {
 public:
  // The lease as now observed (nullopt: it does not exist). Returns a change to report, or
  // nullopt when the holder is the same as before (a renewal).
  std::optional<HolderChange> Observe(api::Timestamp now, const std::optional<api::Lease>& lease);

 private:
  bool seen_ = false;
  std::optional<api::Lease> last_;
  std::string holder_;
  api::Timestamp since_{};
  bool since_is_lower_bound_ = false;
};

// "alpha -> beta   alpha held it 15.3s; taken over after its lease expired"
std::string DescribeChange(const HolderChange& change, const Painter& painter);
// The same prefixed with the local time: "14:03:08.456  alpha -> beta   ..."
std::string FormatChange(const HolderChange& change, const Painter& painter);

}  // namespace tenure::cli
