// Namespace lifecycle: the Namespace kind's strategy, and what a namespace means for the objects
// in it (kube-apiserver's namespace registry strategy and NamespaceLifecycle admission).
//  - A new namespace has spec.finalizers ["kubernetes"] and status.phase Active; an update that
//    leaves status out keeps the stored one. Every write labels a namespace with its name
//    (kubernetes.io/metadata.name), so selectors can pick namespaces by name.
//  - default, kube-system and kube-public cannot be deleted (403).
//  - Deleting a namespace deletes its objects of every namespaced kind, before the namespace
//    goes (kube-apiserver: later, through the namespace controller and a Terminating phase).
//  - An object can be created only in a namespace that exists (404 'namespaces "x" not found').
#pragma once

#include <memory>
#include <string>

#include "server/kind_strategy.h"
#include "store/store.h"

namespace tenure::server {

std::unique_ptr<KindStrategy> MakeNamespaceStrategy(const api::KindInfo& kind);

// Whether a namespaced object may be created in `ns`: NamespaceNotFound when it does not exist.
// Reads the namespace, waiting until `deadline` at most.
Status AdmitIntoNamespace(store::Store& store, const std::string& ns, store::Deadline deadline);

}  // namespace tenure::server
