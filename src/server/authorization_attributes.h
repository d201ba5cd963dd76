// AuthorizationAttributes: what an authorizer is asked about a request, as kube-apiserver's
// authorizer.Attributes: the user, the verb, and either the resource (group, version, resource,
// subresource, namespace, name) or the non-resource path.
#pragma once

#include <string>

#include "server/user_info.h"

namespace tenure::server {

struct AuthorizationAttributes {
  UserInfo user;
  std::string verb;  // "get", "list", "create", ...; for a path: the lowercase method
  bool resource_request = true;
  std::string namespace_;
  std::string api_group;  // "" for the core group
  std::string api_version;
  std::string resource;  // "leases"
  std::string subresource;
  std::string name;  // for list and watch: a metadata.name field selector's value
  std::string path;  // non-resource requests: "/healthz"
};

}  // namespace tenure::server
