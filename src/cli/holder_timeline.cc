// HolderTimeline: a Lease's holder changes from its watched states; FormatChange, DescribeChange.
#include "cli/holder_timeline.h"

#include "cli/lease_view.h"

namespace tenure::cli {

namespace {

std::string HolderOf(const std::optional<api::Lease>& lease) {
  if (!lease || !lease->spec.holder_identity) return "";
  return *lease->spec.holder_identity;
}

std::string Name(const std::string& holder) { return holder.empty() ? "<none>" : holder; }

}  // namespace

std::optional<HolderChange> HolderTimeline::Observe(api::Timestamp now,
                                                    const std::optional<api::Lease>& lease) {
  std::string holder = HolderOf(lease);
  HolderChange change;
  change.at = now;
  change.exists = lease.has_value();
  change.to = holder;
  change.transitions = lease ? lease->spec.lease_transitions.value_or(0) : 0;
  if (!seen_) {
    seen_ = true;
    change.kind = HolderChange::Kind::kInitial;
    since_ = now;
    since_is_lower_bound_ = true;
    if (!holder.empty() && lease->spec.acquire_time && *lease->spec.acquire_time <= now) {
      since_ = *lease->spec.acquire_time;
      since_is_lower_bound_ = false;
    }
    change.previous_for = now - since_;
    change.previous_for_is_lower_bound = since_is_lower_bound_;
  } else if (lease.has_value() != last_.has_value()) {
    change.kind = lease ? HolderChange::Kind::kCreated : HolderChange::Kind::kDeleted;
  } else if (holder != holder_) {
    change.kind = HolderChange::Kind::kChanged;
  } else {
    last_ = lease;
    return std::nullopt;
  }
  if (change.kind != HolderChange::Kind::kInitial) {
    change.from = holder_;
    change.previous_for = now - since_;
    change.previous_for_is_lower_bound = since_is_lower_bound_;
    if (last_ && !holder_.empty() && !holder.empty()) {
      auto expiry = ExpiryOf(*last_);
      change.taken_after_expiry = expiry && *expiry <= now;
    }
    since_ = now;
    since_is_lower_bound_ = false;
  }
  holder_ = holder;
  last_ = lease;
  return change;
}

std::string FormatChange(const HolderChange& change, const Painter& painter) {
  return painter.Paint(TimeOfDay(change.at), Color::kDim) + "  " + DescribeChange(change, painter);
}

std::string DescribeChange(const HolderChange& c, const Painter& painter) {
  std::string line;
  std::string took = c.previous_for ? (c.previous_for_is_lower_bound ? "at least " : "") +
                                          PreciseDuration(*c.previous_for)
                                    : "";
  auto holder = [&](const std::string& h) {
    return painter.Paint(Name(h), h.empty() ? Color::kDim : Color::kGreen);
  };
  switch (c.kind) {
    case HolderChange::Kind::kInitial:
      if (!c.exists) return line + "lease does not exist (yet)";
      if (c.to.empty())
        return line + "no holder (" + std::to_string(c.transitions) + " transitions so far)";
      return line + "holder " + holder(c.to) + " (holding for " + took + ", " +
             std::to_string(c.transitions) + " transitions so far)";
    case HolderChange::Kind::kCreated:
      return line + "lease created, holder " + holder(c.to);
    case HolderChange::Kind::kDeleted:
      return line + "lease deleted" +
             (c.from.empty() ? "" : " (" + c.from + " held it " + took + ")");
    case HolderChange::Kind::kChanged:
      break;
  }
  line += painter.Paint(Name(c.from), c.from.empty() ? Color::kDim : Color::kNone) + " -> " +
          holder(c.to) + "   ";
  if (c.from.empty()) return line + "after " + took + " without a holder";
  line += c.from + " held it " + took;
  if (c.to.empty()) return line + "; released";
  if (c.taken_after_expiry) return line + "; taken over after its lease expired";
  return line;
}

}  // namespace tenure::cli
