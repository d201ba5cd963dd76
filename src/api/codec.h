// Typed objects <-> JSON in kube-apiserver's wire form.
//
// ToJson of a struct built in code emits the canonical form (what Canonicalize returns for the
// same object: unset optional fields omitted, MicroTime with six fractional digits, Time in whole
// seconds, UTC). A kind decoded by *FromJson keeps the object it was decoded from (WireOriginal,
// types.h), and ToJson writes over that only the fields the code changed: a read-modify-write
// through the struct sends back everything else as the server sent it, fields the struct does
// not model included. (List items keep no original: a list is read, not written back.)
// *FromJson is tolerant like a client: unknown fields are ignored, apiVersion/kind are not
// checked, but a known field of the wrong JSON type is BadRequest with kube's message.
// Lenient* is for what runs on every renewal reply or watch event and must read what any other
// client wrote: no canonicalization and no copy (several times cheaper), no error, no original;
// a field of the wrong type, or a time that does not parse, reads as unset.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "api/types.h"
#include "tenure/status.h"

namespace tenure::api {

nlohmann::json ToJson(const ObjectMeta& meta);
nlohmann::json ToJson(const LeaseSpec& spec);
nlohmann::json ToJson(const Lease& lease);  // apiVersion coordination.k8s.io/v1
nlohmann::json ToJson(const LeaseCandidateSpec& spec);
nlohmann::json ToJson(const LeaseCandidate& candidate,
                      std::string_view version = "v1beta1");  // or "v1alpha2"
nlohmann::json ToJson(const ConfigMap& configmap);
nlohmann::json ToJson(const Namespace& ns);
nlohmann::json ToJson(const ObjectReference& ref);
nlohmann::json ToJson(const Event& event);
nlohmann::json ToJson(const DeleteOptions& options);  // the body of a DELETE, apiVersion v1

Result<ObjectMeta> ObjectMetaFromJson(const nlohmann::json& json);
Result<Lease> LeaseFromJson(const nlohmann::json& json);
Result<LeaseCandidate> LeaseCandidateFromJson(const nlohmann::json& json);
Result<ConfigMap> ConfigMapFromJson(const nlohmann::json& json);
Result<Namespace> NamespaceFromJson(const nlohmann::json& json);
Result<Event> EventFromJson(const nlohmann::json& json);

// The metadata of any object.
ObjectMeta LenientMetadata(const nlohmann::json& object);
Lease LenientLease(const nlohmann::json& json);
ConfigMap LenientConfigMap(const nlohmann::json& json);

// "<Kind>List" objects: metadata (resourceVersion, continue, remainingItemCount) and items.
Result<LeaseList> LeaseListFromJson(const nlohmann::json& json);
Result<LeaseCandidateList> LeaseCandidateListFromJson(const nlohmann::json& json);
Result<ConfigMapList> ConfigMapListFromJson(const nlohmann::json& json);
Result<EventList> EventListFromJson(const nlohmann::json& json);
Result<NamespaceList> NamespaceListFromJson(const nlohmann::json& json);

std::string Base64Encode(std::string_view bytes);
std::optional<std::string> Base64Decode(std::string_view text);
// Unpadded URL-safe base64 (Go's base64.RawURLEncoding). A decode failure sets *bad_at, when
// given, to the offset of the first character that cannot be read, as Go reports it.
std::string Base64UrlEncode(std::string_view bytes);
std::optional<std::string> Base64UrlDecode(std::string_view text, size_t* bad_at = nullptr);

}  // namespace tenure::api
