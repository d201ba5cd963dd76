// Query parameters read as kube-apiserver's generated converters read them: the first value of a
// repeated key; a boolean is false only when absent, "0" or "false" in any case (so `?watch`,
// `watch=True` and `watch=yes` are true); an integer is Go's strconv.ParseInt and a bad one is a
// 400 with Go's error text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/validation.h"
#include "server/http_server.h"
#include "server/verb.h"
#include "tenure/status.h"

namespace tenure::server {

// Convert_Slice_string_To_bool: absent is false.
bool QueryBool(const HttpRequest& request, const std::string& name);

// Convert_Slice_string_To_Pointer_bool: absent is nullopt; present (even "false") is set.
std::optional<bool> QueryOptionalBool(const HttpRequest& request, const std::string& name);

// strconv.ParseInt(text, 10, 64): an optional sign and decimal digits, nothing else. The error
// is Go's: `strconv.ParseInt: parsing "abc": invalid syntax` or `...: value out of range`.
Result<int64_t> ParseGoInt64(std::string_view text);

// A *int64 query parameter (timeoutSeconds, limit): nullopt when absent; a value that is not an
// integer (also an empty one) is 400 BadRequest with Go's error.
Result<std::optional<int64_t>> QueryInt64(const HttpRequest& request, const std::string& name);

// The ListOptions of a list or watch, converted as kube-apiserver converts them for both verbs (a
// bad timeoutSeconds is a 400 on a list too), then validated as its ValidateListOptions does:
// 422 on `ListOptions.meta.k8s.io ""` for resourceVersionMatch and sendInitialEvents used where
// they are forbidden (e.g. "sendInitialEvents requires setting resourceVersionMatch to
// NotOlderThan" on a watch, "sendInitialEvents is forbidden for list"). Watch-list
// (sendInitialEvents) is served as by kube-apiserver 1.34+, where its feature gate is on.
struct ListQuery {
  std::optional<int64_t> limit;
  std::optional<int64_t> timeout_seconds;
  bool allow_watch_bookmarks = false;
  std::optional<bool> send_initial_events;
  std::string resource_version_match;  // "", "Exact", "NotOlderThan"
};
Result<ListQuery> ParseListQuery(const HttpRequest& request, bool watch);

// How a list reads its resourceVersion (kube's table): none or "0" (`resource_version` 0) the
// current state; N with Exact, or with a limit and no match (the legacy form), exactly N;
// otherwise N or newer.
enum class ListRead { kCurrent, kExact, kNotOlderThan };
ListRead ListReadOf(const ListQuery& query, int64_t resource_version);

// 504 `Timeout: Too large resource version: N, current: M` with kube's ResourceVersionTooLarge
// cause: a read at a version the store has not reached.
Status TooLargeResourceVersion(int64_t asked, int64_t current);

// The query options of a write (create, update, patch, delete, deletecollection) as
// kube-apiserver validates them: every dryRun value "All"; fieldValidation "", "Ignore", "Strict"
// or "Warn"; for a patch, `force` only with apply and `fieldManager` required by apply; a
// fieldManager of at most 128 printable characters. A bad one
// is kube's 422 on the options kind: `CreateOptions.meta.k8s.io "" is invalid: fieldValidation:
// Unsupported value: "x": supported values: "", "Ignore", "Strict", "Warn"`.
struct WriteQuery {
  bool dry_run = false;
  std::string field_validation;
  std::string field_manager;  // create, update, patch: validated as kube's ValidateFieldManager
  bool force = false;         // an apply patch's ?force
};
Result<WriteQuery> ParseWriteQuery(const HttpRequest& request, Verb verb, bool apply_patch);

// kube's ValidateDeleteOptions for a propagationPolicy that was given: one of Foreground,
// Background or Orphan, and not together with orphanDependents.
api::FieldErrors DeleteOptionErrors(const std::string& propagation_policy, bool orphan_dependents);

}  // namespace tenure::server
