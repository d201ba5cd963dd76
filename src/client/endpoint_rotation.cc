// EndpointRotation::Failed and MayRetryElsewhere: sticky round robin over API server replicas.
#include "client/endpoint_rotation.h"

namespace tenure::client {

size_t EndpointRotation::Failed(size_t index) {
  size_t expected = index;
  size_t next = (index + 1) % count_;
  if (current_.compare_exchange_strong(expected, next)) return next;
  return expected;  // another request already moved on
}

bool MayRetryElsewhere(const std::string& method, bool sent) {
  if (method == "GET" || method == "HEAD") return true;
  return !sent;
}

}  // namespace tenure::client
