// StorageKey and StoragePrefix: the store keys of objects and of collections.
#include "server/storage_key.h"

namespace tenure::server {

std::string StoragePrefix(const api::KindInfo& kind, const std::string& ns) {
  std::string key = "/registry/";
  key += kind.resource;
  key += '/';
  if (kind.namespaced && !ns.empty()) {
    key += ns;
    key += '/';
  }
  return key;
}

std::string StorageKey(const api::KindInfo& kind, const std::string& ns, const std::string& name) {
  return StoragePrefix(kind, ns) + name;
}

}  // namespace tenure::server
