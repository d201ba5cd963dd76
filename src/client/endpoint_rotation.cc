// EndpointRotation::Failed and MayRetryElsewhere: sticky round robin over API server replicas.
#include "client/endpoint_rotation.h"

#include <algorithm>
#include <cstdint>

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

bool ReplicaCannotServe(int http_status) { return http_status == 503 || http_status == 504; }

std::chrono::milliseconds EndpointShare(std::chrono::nanoseconds left, size_t untried) {
  using std::chrono::milliseconds;
  if (left <= std::chrono::nanoseconds::zero()) return milliseconds::zero();
  // Divided as a signed count: a duration divided by a size_t is computed unsigned.
  auto share = left / static_cast<int64_t>(std::max<size_t>(untried, 1));
  return std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(share));
}

std::chrono::milliseconds ServerTimeout(std::chrono::milliseconds share) {
  using std::chrono::milliseconds;
  const milliseconds margin = std::min(share / 10, milliseconds(200));
  return std::max(milliseconds(1), share - margin);
}

}  // namespace tenure::client
