// TermLedger: a Lease's terms and renewal cadence from successive observations.
#include "dashboard/term_ledger.h"

#include <nlohmann/json.hpp>

namespace tenure::dashboard {

using nlohmann::json;
using std::chrono::milliseconds;

namespace {

milliseconds Between(api::Timestamp from, api::Timestamp to) {
  return std::chrono::duration_cast<milliseconds>(to - from);
}

api::Timestamp ExpiryOf(const Term& term) {
  return term.last_renewal + std::chrono::seconds(term.lease_duration_seconds);
}

constexpr std::pair<TermEnd, std::string_view> kEndNames[] = {
    {TermEnd::kCurrent, "current"}, {TermEnd::kReleased, "released"},
    {TermEnd::kExpired, "expired"}, {TermEnd::kReplaced, "replaced"},
    {TermEnd::kDeleted, "deleted"}, {TermEnd::kUnobserved, "unobserved"},
};

}  // namespace

std::string_view TermEndName(TermEnd end) {
  for (const auto& [kind, name] : kEndNames) {
    if (kind == end) return name;
  }
  return "current";
}

json TermToJson(const Term& term) {
  json out = {{"holder", term.holder},
              {"start", api::FormatMicroTime(term.start)},
              {"lastRenewal", api::FormatMicroTime(term.last_renewal)},
              {"renewals", term.renewals},
              {"leaseDurationSeconds", term.lease_duration_seconds},
              {"end", TermEndName(term.end_kind)}};
  if (term.start_estimated) out["startEstimated"] = true;
  if (term.transitions) out["transitions"] = *term.transitions;
  if (term.end) out["endTime"] = api::FormatMicroTime(*term.end);
  if (term.handover) out["handoverMs"] = term.handover->count();
  return out;
}

Result<Term> TermFromJson(const json& in) {
  if (!in.is_object()) return Status::BadRequest("a term is an object");
  Term term;
  auto time = [&](const char* key, api::Timestamp& out) -> Status {
    auto it = in.find(key);
    if (it == in.end() || !it->is_string()) return Status::BadRequest(std::string("no ") + key);
    auto t = api::ParseTime(it->get<std::string>());
    if (!t) return Status::BadRequest(std::string("bad ") + key);
    out = *t;
    return Status::Ok();
  };
  auto holder = in.find("holder");
  if (holder == in.end() || !holder->is_string()) return Status::BadRequest("no holder");
  term.holder = holder->get<std::string>();
  for (Status s : {time("start", term.start), time("lastRenewal", term.last_renewal)}) {
    if (!s.ok()) return s;
  }
  // Optional members: absent is the default, present with another type refuses the term (a
  // wrong type must not throw out of reading the archive).
  auto wrong = [&](const char* key, bool (json::*is)() const noexcept) {
    auto it = in.find(key);
    return it != in.end() && !((*it).*is)();
  };
  for (const char* key : {"renewals", "leaseDurationSeconds", "transitions", "handoverMs"}) {
    if (wrong(key, &json::is_number_integer)) return Status::BadRequest(std::string("bad ") + key);
  }
  if (wrong("startEstimated", &json::is_boolean) || wrong("end", &json::is_string)) {
    return Status::BadRequest("bad startEstimated or end");
  }
  term.start_estimated = in.value("startEstimated", false);
  term.renewals = in.value("renewals", int64_t{0});
  term.lease_duration_seconds = in.value("leaseDurationSeconds", 0);
  if (auto t = in.find("transitions"); t != in.end()) term.transitions = t->get<int32_t>();
  const std::string end = in.value("end", "current");
  bool known = false;
  for (const auto& [kind, name] : kEndNames) {
    if (name == end) term.end_kind = kind, known = true;
  }
  if (!known) return Status::BadRequest("unknown end \"" + end + "\"");
  if (in.contains("endTime")) {
    api::Timestamp at;
    if (Status s = time("endTime", at); !s.ok()) return s;
    term.end = at;
  }
  if (auto h = in.find("handoverMs"); h != in.end())
    term.handover = milliseconds(h->get<int64_t>());
  return term;
}

Term* TermLedger::open() {
  if (terms_.empty() || terms_.back().end_kind != TermEnd::kCurrent) return nullptr;
  return &terms_.back();
}

void TermLedger::End(Term& term, TermEnd kind, api::Timestamp at) {
  term.end_kind = kind;
  term.end = at;
}

void TermLedger::Start(api::Timestamp now, const api::LeaseSpec& spec) {
  Term term;
  term.holder = spec.holder_identity.value_or("");
  term.lease_duration_seconds = spec.lease_duration_seconds.value_or(0);
  term.transitions = spec.lease_transitions;
  const Term* previous = terms_.empty() ? nullptr : &terms_.back();
  // The previous term's end, or its last renewal: the new one cannot have started before.
  std::optional<api::Timestamp> floor;
  if (previous != nullptr) floor = previous->end.value_or(previous->last_renewal);
  if (spec.acquire_time && (!floor || *spec.acquire_time >= *floor)) {
    term.start = *spec.acquire_time;
  } else if (spec.renew_time && previous != nullptr && (!floor || *spec.renew_time >= *floor)) {
    // The same holder again after its term lapsed: client-go keeps its acquireTime.
    term.start = *spec.renew_time;
  } else {
    term.start = floor ? std::max(now, *floor) : now;
    term.start_estimated = true;
  }
  term.last_renewal = spec.renew_time.value_or(term.start);
  if (previous != nullptr) {
    if (previous->end_kind == TermEnd::kReleased && previous->end) {
      term.handover = Between(*previous->end, term.start);
    } else if (previous->end_kind == TermEnd::kExpired) {
      term.handover = Between(previous->last_renewal, term.start);
    }
    if (term.handover && term.handover->count() < 0) term.handover = milliseconds(0);
  }
  terms_.push_back(std::move(term));
  if (terms_.size() > kMaxTerms) terms_.erase(terms_.begin(), terms_.end() - kMaxTerms);
  // The cadence is the current term's.
  intervals_kept_ = 0;
  oldest_ = 0;
}

bool TermLedger::Observe(api::Timestamp now, const api::LeaseSpec* spec) {
  const bool restored = std::exchange(restored_, false);
  Term* current = open();
  if (spec == nullptr) {
    if (current == nullptr) return false;
    // A restored term whose Lease is gone ended while nobody watched (when, is not known).
    if (restored) {
      End(*current, TermEnd::kUnobserved, std::min(now, ExpiryOf(*current)));
    } else {
      End(*current, TermEnd::kDeleted, now);
    }
    return true;
  }
  const std::string holder = spec->holder_identity.value_or("");
  // The same holder under the same acquireTime: the term the ledger holds.
  auto same_term = [&](const Term& term) {
    return term.holder == holder &&
           (!spec->acquire_time || term.start_estimated || *spec->acquire_time == term.start);
  };
  if (current != nullptr && restored && !same_term(*current)) {
    // The archive's current term is not the Lease's: it ended while nobody watched.
    End(*current, TermEnd::kUnobserved, std::min(now, ExpiryOf(*current)));
    current = nullptr;
  }
  bool reopened = false;
  if (current == nullptr && !terms_.empty() && terms_.back().end_kind == TermEnd::kExpired &&
      same_term(terms_.back()) && spec->renew_time &&
      *spec->renew_time > terms_.back().last_renewal &&
      *spec->renew_time <= ExpiryOf(terms_.back())) {
    // A renewal written before the expiry, seen after it (the watch was late, or this clock
    // ahead): the term goes on. The same renewal again (a relist) proves nothing.
    terms_.back().end_kind = TermEnd::kCurrent;
    terms_.back().end.reset();
    current = &terms_.back();
    reopened = true;
  }
  if (current == nullptr && !terms_.empty() && terms_.back().end_kind != TermEnd::kCurrent &&
      same_term(terms_.back()) && spec->renew_time &&
      *spec->renew_time <= terms_.back().last_renewal) {
    // The Lease as it was when its term ended (a relist delivers every object again): nothing
    // new, no new term.
    return false;
  }
  if (current != nullptr && restored && same_term(*current)) {
    // Continued from the archive, whose last renewal may be old: no lapse, no interval.
    if (spec->renew_time && *spec->renew_time > current->last_renewal) {
      current->last_renewal = *spec->renew_time;
    }
  }
  if (current != nullptr && spec->renew_time && *spec->renew_time > ExpiryOf(*current) &&
      current->holder == holder) {
    // Renewed after its lease had run out: the term lapsed, and a new one starts.
    End(*current, TermEnd::kExpired, ExpiryOf(*current));
    current = nullptr;
  }
  if (holder.empty()) {
    if (current == nullptr) return false;
    if (ExpiryOf(*current) < spec->renew_time.value_or(now)) {
      End(*current, TermEnd::kExpired, ExpiryOf(*current));
    } else {
      End(*current, TermEnd::kReleased, spec->renew_time.value_or(now));
    }
    return true;
  }
  if (current != nullptr && current->holder == holder) {
    current->lease_duration_seconds =
        spec->lease_duration_seconds.value_or(current->lease_duration_seconds);
    if (spec->renew_time && *spec->renew_time > current->last_renewal) {
      const milliseconds interval =
          std::min(Between(current->last_renewal, *spec->renew_time), kLongestInterval);
      const uint16_t ms = static_cast<uint16_t>(interval.count());
      if (intervals_kept_ < kMaxRenewals) {
        intervals_[(oldest_ + intervals_kept_++) % kMaxRenewals] = ms;
      } else {
        intervals_[oldest_] = ms;
        oldest_ = static_cast<uint8_t>((oldest_ + 1) % kMaxRenewals);
      }
      newest_renewal_ = *spec->renew_time;
      current->last_renewal = *spec->renew_time;
      ++current->renewals;
    }
    return reopened;
  }
  if (current != nullptr) {
    // The next holder's acquireTime, unless its clock puts it before the current holder's last
    // renewal: then when it was seen.
    const api::Timestamp floor = std::max(current->start, current->last_renewal);
    const api::Timestamp next_start = spec->acquire_time && *spec->acquire_time >= floor
                                          ? *spec->acquire_time
                                          : std::max(now, floor);
    if (ExpiryOf(*current) <= next_start) {
      End(*current, TermEnd::kExpired, ExpiryOf(*current));
    } else {
      End(*current, TermEnd::kReplaced, next_start);
    }
  }
  Start(now, *spec);
  return true;
}

bool TermLedger::Tick(api::Timestamp now) {
  Term* current = open();
  if (current == nullptr || restored_ || current->lease_duration_seconds <= 0) return false;
  if (now < ExpiryOf(*current)) return false;
  End(*current, TermEnd::kExpired, ExpiryOf(*current));
  return true;
}

std::vector<Renewal> TermLedger::renewals() const {
  std::vector<Renewal> out(intervals_kept_);
  api::Timestamp at = newest_renewal_;
  for (size_t i = intervals_kept_; i-- > 0;) {
    const milliseconds interval(intervals_[(oldest_ + i) % kMaxRenewals]);
    out[i] = {at, interval};
    at -= interval;
  }
  return out;
}

std::optional<api::Timestamp> TermLedger::CurrentTermExpiry() const {
  if (terms_.empty() || terms_.back().end_kind != TermEnd::kCurrent || restored_)
    return std::nullopt;
  if (terms_.back().lease_duration_seconds <= 0) return std::nullopt;
  return ExpiryOf(terms_.back());
}

void TermLedger::Restore(std::vector<Term> terms) {
  terms_ = std::move(terms);
  if (terms_.size() > kMaxTerms) terms_.erase(terms_.begin(), terms_.end() - kMaxTerms);
  restored_ = open() != nullptr;
}

}  // namespace tenure::dashboard
