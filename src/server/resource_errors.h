// The errors of resource requests in kube-apiserver's words: kubectl and the official clients'
// tests compare these messages and details byte for byte.
#pragma once

#include <string>
#include <string_view>

#include "api/kinds.h"
#include "tenure/status.h"

namespace tenure::server {

// `status` with details naming the object: its name, group, and the kind for Invalid (kubectl
// prints 'The Lease "x" is invalid') or the resource otherwise.
Status WithDetails(Status status, const api::KindInfo& kind, const std::string& name);

// 'leases.coordination.k8s.io "x" not found'.
Status NotFoundError(const api::KindInfo& kind, const std::string& name);
// 'namespaces "x" not found': the namespace of a request does not exist.
Status NamespaceNotFound(const std::string& ns);
// 'Operation cannot be fulfilled on ... the object has been modified; ...'.
Status ConflictError(const api::KindInfo& kind, const std::string& name);
// A store error (NotFound, Conflict, AlreadyExists) in kube-apiserver's wording for the object;
// any other status unchanged.
Status StoreError(const Status& status, const api::KindInfo& kind, const std::string& name);

// 404 'the server could not find the requested resource': a path or kind the server does not
// serve.
Status NoSuchResource();
// 405 'the server does not allow this method on the requested resource', without details: no
// route of the path takes the method (kube-apiserver's router answers it, knowing no resource).
Status MethodNotAllowed();
// 405 'watch is not supported on resources of kind "namespaces"' with the group and resource in
// the details: the route exists, the kind does not serve `verb` there (apierrors'
// NewMethodNotSupported).
Status MethodNotSupported(const api::KindInfo& kind, std::string_view verb);

}  // namespace tenure::server
