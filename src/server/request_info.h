// RequestInfo: what a Kubernetes API path asks for, as kube-apiserver's RequestInfoFactory
// reads it ("/apis/coordination.k8s.io/v1/namespaces/ns/leases/x" -> get lease x in ns).
#pragma once

#include <optional>
#include <string>

#include "server/http_server.h"
#include "server/verb.h"

namespace tenure::server {

struct RequestInfo {
  bool is_resource_request = false;  // false for /api, /apis, /version, /openapi, /healthz...
  std::optional<Verb> verb;          // nullopt: a method the API does not serve (OPTIONS...)
  bool legacy_watch = false;         // the deprecated /watch/ path prefix: verb is kWatch
  std::string api_prefix;            // "api" or "apis"
  std::string group;                 // "" for core
  std::string version;
  std::string namespace_;  // "" when cluster-wide
  std::string resource;    // "leases"
  std::string name;
  std::string subresource;
};

// Parses method + path + query; is_resource_request is false for non-resource paths.
RequestInfo ParseRequestInfo(const HttpRequest& request);

}  // namespace tenure::server
