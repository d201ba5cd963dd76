// Where objects are stored: under "/registry/<resource>/<namespace>/<name>" (cluster-scoped:
// "/registry/<resource>/<name>"), as canonical JSON without metadata.resourceVersion; the
// resourceVersion is the store's mod_revision and is added when an object is sent.
#pragma once

#include <string>

#include "api/kinds.h"

namespace tenure::server {

std::string StorageKey(const api::KindInfo& kind, const std::string& ns, const std::string& name);
// The prefix of a namespace's objects of the kind (`ns` "": of all namespaces).
std::string StoragePrefix(const api::KindInfo& kind, const std::string& ns);

}  // namespace tenure::server
