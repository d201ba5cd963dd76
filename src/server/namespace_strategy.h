// Namespace lifecycle: the Namespace kind's strategy, and what a namespace means for the objects
// in it (kube-apiserver's namespace registry strategy and NamespaceLifecycle admission).
//  - A new namespace has spec.finalizers ["kubernetes"] and status.phase Active; an update that
//    leaves status out keeps the stored one. Every write labels a namespace with its name
//    (kubernetes.io/metadata.name), so selectors can pick namespaces by name.
//  - default, kube-system and kube-public cannot be deleted (403).
//  - Deleting a namespace with finalizers marks it Terminating (deletionTimestamp, status.phase);
//    the NamespaceController (namespace_controller.h) then deletes its objects of every kind,
//    removes the "kubernetes" finalizer and the namespace. A second delete meanwhile is 409.
//  - An object can be created only in a namespace that exists (404 'namespaces "x" not found')
//    and is not terminating (403, cause NamespaceTerminating).
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "server/kind_strategy.h"
#include "store/store.h"

namespace tenure::server {

std::unique_ptr<KindStrategy> MakeNamespaceStrategy(const api::KindInfo& kind);

// Whether the object `name` of `kind` may be created in `ns`: NamespaceNotFound when it does not
// exist, kube's NamespaceLifecycle 403 when it is terminating. Reads the namespace, waiting until
// `deadline` at most.
Status AdmitIntoNamespace(store::Store& store, const api::KindInfo& kind, const std::string& ns,
                          const std::string& name, store::Deadline deadline);

// A stored Namespace that is being deleted (its deletionTimestamp is set).
bool IsTerminating(const nlohmann::json& ns);
// Whether a Namespace still has finalizers: spec's (the namespace lifecycle's), or any.
bool HasSpecFinalizers(const nlohmann::json& ns);
bool HasFinalizers(const nlohmann::json& ns);

}  // namespace tenure::server
