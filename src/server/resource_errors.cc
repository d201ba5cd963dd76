// The errors of resource requests (NotFound, Conflict, AlreadyExists...) in kube-apiserver's words.
#include "server/resource_errors.h"

namespace tenure::server {

Status WithDetails(Status status, const api::KindInfo& kind, const std::string& name) {
  StatusDetails d;
  d.name = name;
  d.group = std::string(kind.group);
  d.kind =
      status.reason() == Reason::kInvalid ? std::string(kind.kind) : std::string(kind.resource);
  status.set_details(std::move(d));
  return status;
}

Status NotFoundError(const api::KindInfo& kind, const std::string& name) {
  return WithDetails(Status::NotFound(kind.qualified_resource() + " \"" + name + "\" not found"),
                     kind, name);
}

Status NamespaceNotFound(const std::string& ns) {
  Status s = Status::NotFound("namespaces \"" + ns + "\" not found");
  s.set_details({.name = ns, .group = "", .kind = "namespaces"});
  return s;
}

Status ConflictError(const api::KindInfo& kind, const std::string& name) {
  return WithDetails(Status::Conflict("Operation cannot be fulfilled on " +
                                      kind.qualified_resource() + " \"" + name +
                                      "\": the object has been modified; please apply your "
                                      "changes to the latest version and try again"),
                     kind, name);
}

Status StoreError(const Status& status, const api::KindInfo& kind, const std::string& name) {
  switch (status.reason()) {
    case Reason::kNotFound:
      return NotFoundError(kind, name);
    case Reason::kConflict:
      return ConflictError(kind, name);
    case Reason::kAlreadyExists:
      return WithDetails(
          Status::AlreadyExists(kind.qualified_resource() + " \"" + name + "\" already exists"),
          kind, name);
    default:
      return status;
  }
}

Status NoSuchResource() {
  return Status::NotFound("the server could not find the requested resource");
}

Status MethodNotAllowed() {
  return Status(Reason::kMethodNotAllowed,
                "the server does not allow this method on the requested resource");
}

Status MethodNotSupported(const api::KindInfo& kind, std::string_view verb) {
  Status s(Reason::kMethodNotAllowed, std::string(verb) +
                                          " is not supported on resources of kind \"" +
                                          kind.qualified_resource() + "\"");
  s.set_details({.name = "", .group = std::string(kind.group), .kind = std::string(kind.resource)});
  return s;
}

}  // namespace tenure::server
