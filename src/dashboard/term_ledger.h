// TermLedger: the terms of one Lease (who held it from when to when, how each term ended, how
// long the lease went without a working holder before each), and the cadence of its renewals,
// built from successive observations of the Lease as a watch delivers them. Pure: the caller
// gives the time of each observation; not thread-safe.
//
// A term starts at the holder's acquireTime (the observation's time when absent or older than
// the previous term's end) and ends:
//   released    the holder wrote an empty holderIdentity (at that write's renewTime);
//   expired     its lease ran out (renewTime + leaseDurationSeconds passed) before anyone else
//               held it: a crash or a stall. The next term's handover is counted from the last
//               renewal, the last sign of a working holder;
//   replaced    another holder took it while it was valid (a forced write, a preemption);
//   deleted     the Lease was deleted;
//   unobserved  it ended while nobody was watching (a term restored from the archive that the
//               Lease no longer shows).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "tenure/status.h"

namespace tenure::dashboard {

enum class TermEnd { kCurrent, kReleased, kExpired, kReplaced, kDeleted, kUnobserved };
std::string_view TermEndName(TermEnd end);  // "current", "released", ...

struct Term {
  std::string holder;
  api::Timestamp start{};
  bool start_estimated = false;  // no acquireTime: when the dashboard first saw the term
  api::Timestamp last_renewal{};
  int64_t renewals = 0;  // renewals seen during the term
  int32_t lease_duration_seconds = 0;
  std::optional<int32_t> transitions;  // leaseTransitions at the term's start
  TermEnd end_kind = TermEnd::kCurrent;
  std::optional<api::Timestamp> end;
  // Without a working holder before this term: from the previous holder's release, or from its
  // last renewal when its lease ran out, to this term's start. None for the first term seen and
  // after a replaced or unobserved term.
  std::optional<std::chrono::milliseconds> handover;
  bool operator==(const Term&) const = default;
};

nlohmann::json TermToJson(const Term& term);
Result<Term> TermFromJson(const nlohmann::json& json);

// One renewal: when it happened (renewTime) and how long after the one before it.
struct Renewal {
  api::Timestamp at{};
  std::chrono::milliseconds interval{0};
  bool operator==(const Renewal&) const = default;
};

class TermLedger {
 public:
  static constexpr size_t kMaxTerms = 50;
  // The renewal cadence is kept for every Lease of a cluster, so it is small and in place: the
  // last 40 intervals in milliseconds, 2 bytes each (one longer than 65.535 s counts as that long).
  static constexpr size_t kMaxRenewals = 40;
  static constexpr std::chrono::milliseconds kLongestInterval{65535};

  // The Lease as observed at `now` (null: deleted). True when a term started or ended.
  bool Observe(api::Timestamp now, const api::LeaseSpec* spec);
  // Ends the current term as expired once `now` is past its expiry. True when it did.
  bool Tick(api::Timestamp now);
  // Terms kept from before (the archive): the next observation continues the current one when
  // the Lease still shows it, and ends it as unobserved otherwise.
  void Restore(std::vector<Term> terms);

  const std::vector<Term>& terms() const { return terms_; }
  // When the current term's lease runs out unless renewed (Tick ends it then); none without one.
  std::optional<api::Timestamp> CurrentTermExpiry() const;
  // The last renewals, oldest first (their times counted back from the newest).
  std::vector<Renewal> renewals() const;

 private:
  Term* open();
  void End(Term& term, TermEnd kind, api::Timestamp at);
  void Start(api::Timestamp now, const api::LeaseSpec& spec);

  // (In this order, without padding between the small members: a ledger per Lease.)
  std::vector<Term> terms_;
  std::array<uint16_t, kMaxRenewals> intervals_{};  // milliseconds, a ring from `oldest_`
  uint8_t oldest_ = 0;
  uint8_t intervals_kept_ = 0;
  bool restored_ = false;  // the open term, if any, awaits confirmation by an observation
  api::Timestamp newest_renewal_{};
};

}  // namespace tenure::dashboard
