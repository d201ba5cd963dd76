// Query parameters with kube-apiserver's conversion rules: booleans and Go integers.
#include "server/query_options.h"

#include <limits>
#include <vector>

#include "api/ascii.h"
#include "api/validation.h"
#include "server/field_manager.h"

namespace tenure::server {

namespace {

bool GoBool(std::string_view value) {
  return !(value == "0" || api::EqualsIgnoringAsciiCase(value, "false"));
}

std::string_view OptionsKind(Verb verb) {
  switch (verb) {
    case Verb::kCreate:
      return "CreateOptions.meta.k8s.io";
    case Verb::kUpdate:
      return "UpdateOptions.meta.k8s.io";
    case Verb::kPatch:
      return "PatchOptions.meta.k8s.io";
    default:
      return "DeleteOptions.meta.k8s.io";
  }
}

}  // namespace

bool QueryBool(const HttpRequest& request, const std::string& name) {
  if (!request.has_param(name)) return false;
  return GoBool(request.param(name));
}

std::optional<bool> QueryOptionalBool(const HttpRequest& request, const std::string& name) {
  if (!request.has_param(name)) return std::nullopt;
  return GoBool(request.param(name));
}

Result<int64_t> ParseGoInt64(std::string_view text) {
  auto failure = [&](const char* why) {
    return Status::BadRequest("strconv.ParseInt: parsing " + api::GoQuote(text) + ": " + why);
  };
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return failure("invalid syntax");
  // One pass as Go's ParseUint: a byte that is not a digit is bad syntax, unless the value has
  // already passed uint64, which ends the parse at once as out of range.
  uint64_t magnitude = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return failure("invalid syntax");
    const auto digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return failure("value out of range");
    }
    magnitude = magnitude * 10 + digit;
  }
  constexpr uint64_t kCutoff = uint64_t{1} << 63;  // INT64_MIN's magnitude
  if (negative) {
    if (magnitude > kCutoff) return failure("value out of range");
    return magnitude == kCutoff ? std::numeric_limits<int64_t>::min()
                                : -static_cast<int64_t>(magnitude);
  }
  if (magnitude >= kCutoff) return failure("value out of range");
  return static_cast<int64_t>(magnitude);
}

Result<std::optional<int64_t>> QueryInt64(const HttpRequest& request, const std::string& name) {
  if (!request.has_param(name)) return std::optional<int64_t>();
  auto value = ParseGoInt64(request.param(name));
  if (!value.ok()) return value.status();
  return std::optional<int64_t>(*value);
}

namespace {

// internalversion's validateWatchOptions and ValidateListOptions, in their order.
api::FieldErrors ListOptionErrors(const ListQuery& query, bool watch,
                                  const std::string& resource_version, bool has_continue) {
  api::FieldErrors errs;
  const std::string& match = query.resource_version_match;
  if (watch) {
    if (query.send_initial_events && match != "NotOlderThan") {
      errs.push_back(api::Forbidden(
          "resourceVersionMatch",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    }
    if (!match.empty()) {
      if (!query.send_initial_events) {
        errs.push_back(api::Forbidden("resourceVersionMatch",
                                      "resourceVersionMatch is forbidden for watch unless "
                                      "sendInitialEvents is provided"));
      }
      if (match != "NotOlderThan") {
        errs.push_back(api::NotSupported("resourceVersionMatch", match, {"NotOlderThan"}));
      }
      if (has_continue) {
        errs.push_back(api::Forbidden(
            "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      }
    }
    return errs;
  }
  if (!match.empty()) {
    if (resource_version.empty()) {
      errs.push_back(
          api::Forbidden("resourceVersionMatch",
                         "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    }
    if (has_continue) {
      errs.push_back(api::Forbidden("resourceVersionMatch",
                                    "resourceVersionMatch is forbidden when continue is provided"));
    }
    if (match != "Exact" && match != "NotOlderThan") {
      errs.push_back(
          api::NotSupported("resourceVersionMatch", match, {"Exact", "NotOlderThan", ""}));
    }
    if (match == "Exact" && resource_version == "0") {
      errs.push_back(
          api::Forbidden("resourceVersionMatch",
                         "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
    }
  }
  if (query.send_initial_events) {
    errs.push_back(api::Forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  return errs;
}

}  // namespace

Result<ListQuery> ParseListQuery(const HttpRequest& request, bool watch) {
  ListQuery query;
  // The converter's field order: timeoutSeconds before limit.
  auto timeout = QueryInt64(request, "timeoutSeconds");
  if (!timeout.ok()) return timeout.status();
  query.timeout_seconds = *timeout;
  auto limit = QueryInt64(request, "limit");
  if (!limit.ok()) return limit.status();
  query.limit = *limit;
  query.allow_watch_bookmarks = QueryBool(request, "allowWatchBookmarks");
  query.send_initial_events = QueryOptionalBool(request, "sendInitialEvents");
  query.resource_version_match = request.param("resourceVersionMatch");
  api::FieldErrors errs = ListOptionErrors(query, watch, request.param("resourceVersion"),
                                           !request.param("continue").empty());
  if (Status s = api::InvalidStatus("ListOptions.meta.k8s.io", "", errs); !s.ok()) return s;
  return query;
}

ListRead ListReadOf(const ListQuery& query, int64_t resource_version) {
  if (resource_version == 0) return ListRead::kCurrent;
  const std::string& match = query.resource_version_match;
  if (match == "Exact" || (match.empty() && query.limit.value_or(0) > 0)) return ListRead::kExact;
  return ListRead::kNotOlderThan;
}

Status TooLargeResourceVersion(int64_t asked, int64_t current) {
  return Status(Reason::kTimeout,
                "Timeout: Too large resource version: " + std::to_string(asked) +
                    ", current: " + std::to_string(current),
                {{.type = "ResourceVersionTooLarge", .message = "Too large resource version"}});
}

Result<WriteQuery> ParseWriteQuery(const HttpRequest& request, Verb verb, bool apply_patch) {
  WriteQuery query;
  api::FieldErrors errs;
  // kube's order: the patch's own checks, then dryRun, then fieldValidation.
  if (verb == Verb::kPatch) {
    if (!apply_patch && request.has_param("force")) {
      errs.push_back(api::Forbidden("force", "may not be specified for non-apply patch"));
    }
    if (apply_patch && request.param("fieldManager").empty()) {
      errs.push_back(api::Required("fieldManager", "is required for apply patch"));
    }
    query.force = QueryBool(request, "force");
  }
  if (verb == Verb::kCreate || verb == Verb::kUpdate || verb == Verb::kPatch) {
    query.field_manager = request.param("fieldManager");
    api::FieldErrors manager = FieldManagerErrors(query.field_manager);
    errs.insert(errs.end(), manager.begin(), manager.end());
  }
  // kube's ValidateDeleteOptions: the propagation policy before dryRun.
  // (With a body, kube reads the DeleteOptions from the body only: ResourceApi checks it.)
  if ((verb == Verb::kDelete || verb == Verb::kDeleteCollection) && request.body.empty() &&
      request.has_param("propagationPolicy")) {
    api::FieldErrors policy = DeleteOptionErrors(request.param("propagationPolicy"),
                                                 request.has_param("orphanDependents"));
    errs.insert(errs.end(), policy.begin(), policy.end());
  }
  // dryRun is the one option that keeps every value.
  std::vector<std::string> dry_run;
  for (auto [it, end] = request.query.equal_range("dryRun"); it != end; ++it) {
    dry_run.push_back(it->second);
  }
  for (const std::string& value : dry_run) {
    if (value != "All") {
      errs.push_back({api::FieldError::Type::kNotSupported, "dryRun", api::GoStringSlice(dry_run),
                      "supported values: \"All\""});
      break;
    }
  }
  query.dry_run = !dry_run.empty();
  if (verb != Verb::kDelete && verb != Verb::kDeleteCollection) {
    query.field_validation = request.param("fieldValidation");
    const std::string& v = query.field_validation;
    if (v != "" && v != "Ignore" && v != "Strict" && v != "Warn") {
      errs.push_back(api::NotSupported("fieldValidation", v, {"", "Ignore", "Strict", "Warn"}));
    }
  }
  if (Status s = api::InvalidStatus(OptionsKind(verb), "", errs); !s.ok()) return s;
  return query;
}

api::FieldErrors DeleteOptionErrors(const std::string& propagation_policy, bool orphan_dependents) {
  api::FieldErrors errs;
  // kube's ValidateDeleteOptions.
  if (orphan_dependents) {
    errs.push_back(api::Invalid("propagationPolicy", propagation_policy,
                                "orphanDependents and deletionPropagation cannot be both set"));
  }
  const std::string& p = propagation_policy;
  if (p != "Foreground" && p != "Background" && p != "Orphan") {
    errs.push_back(
        api::NotSupported("propagationPolicy", p, {"Foreground", "Background", "Orphan", "nil"}));
  }
  return errs;
}

}  // namespace tenure::server
