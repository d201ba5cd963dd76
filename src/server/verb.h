// Verb: what a resource request does, as kube-apiserver's RequestInfo names it. Decided once,
// where the request is classified (ParseRequestInfo); routing, admission and authorization read
// the enum, and its kube name ("get", "deletecollection") is what messages, metrics and audit
// records show and what RBAC rules list.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace tenure::server {

enum class Verb { kGet, kList, kWatch, kCreate, kUpdate, kPatch, kDelete, kDeleteCollection };

// "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection".
std::string_view KubeName(Verb verb);
// The verb of a kube name; nullopt for any other text (also "*" and other RBAC wildcards).
std::optional<Verb> VerbFromKubeName(std::string_view name);
// Every verb, in the enum's order.
std::vector<Verb> EveryVerb();
// get, list and watch: the verbs that change nothing.
bool IsReadOnly(Verb verb);

}  // namespace tenure::server
