// Patch application for PATCH requests: the patch types kube-apiserver accepts, as pure
// functions from (current object, patch body) to the patched object; server-side apply, which
// also decides field ownership, is FieldManager::Apply (field_manager.h).
//
// All functions take parsed JSON and never throw; a malformed patch or one that does not apply
// comes back as a Status with the reason and message kube-apiserver would give:
//  - a body that is not a valid patch of its type: BadRequest;
//  - a JSON patch whose operations do not apply (missing path, failed test): Invalid with message
//    "the server rejected our request due to an error in our request" and one cause of type
//    "UnexpectedServerResponse" carrying the json-patch error, as kube-apiserver's 422;
//  - more than 10000 JSON patch operations: RequestEntityTooLarge.
// The result is not canonicalized or validated: the caller runs api::Canonicalize and
// validation on it, restores server-owned metadata, and compares it with the stored object to
// detect a no-op patch (which must not bump resourceVersion).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string_view>

#include "tenure/status.h"

namespace tenure::server {

enum class PatchType {
  kMerge,           // application/merge-patch+json (RFC 7386)
  kStrategicMerge,  // application/strategic-merge-patch+json
  kJson,            // application/json-patch+json (RFC 6902)
  kApply,           // application/apply-patch+yaml (server-side apply)
};

// The patch type of a Content-Type header value; parameters (";charset=utf-8") and case are
// ignored. nullopt for anything else: the server answers 415 UnsupportedMediaType.
std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type);

// The Content-Type string of a patch type ("application/merge-patch+json", ...).
std::string_view PatchContentType(PatchType type);

// RFC 7386 JSON merge patch: null deletes a member, objects merge recursively, every other value
// (arrays included) replaces. As in kube-apiserver, the patch itself must be a JSON object (a
// Kubernetes object stays an object): any other top-level value is a BadRequest.
Result<nlohmann::json> ApplyMergePatch(const nlohmann::json& target, const nlohmann::json& patch);

// RFC 6902 JSON patch: `patch` must be an array of operations (add, remove, replace, move, copy,
// test) addressing RFC 6901 JSON Pointers (~0 for '~', ~1 for '/'; "-" appends to an array).
// Operations apply in order to a copy; the first failing one fails the whole patch.
Result<nlohmann::json> ApplyJsonPatch(const nlohmann::json& target, const nlohmann::json& patch);

// Strategic merge patch for tenure's kinds (Lease, LeaseCandidate, ConfigMap, Namespace, Event).
// Behaves as a merge patch except where the kinds' Go types carry a patch strategy (the list
// rules of their descriptions, api/description.h):
//  - metadata.finalizers: a set of strings merged by value (union with the patch's entries);
//  - metadata.ownerReferences: a list of objects merged by "uid";
//  - status.conditions of a Namespace: a list of objects merged by "type".
// Every other list is replaced. Directives kubectl sends are understood and never stored:
// "$patch" (replace / delete / merge, in a map or as a list element), "$retainKeys",
// "$setElementOrder/<list>", "$deleteFromPrimitiveList/<list>". A "$patch" value other than
// replace / delete / merge, a map-list element without its merge key, or a non-object patch is
// a BadRequest.
Result<nlohmann::json> ApplyStrategicMergePatch(const nlohmann::json& target,
                                                const nlohmann::json& patch);

}  // namespace tenure::server
