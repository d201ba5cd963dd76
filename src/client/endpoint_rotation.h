// EndpointRotation: which of several equivalent API server endpoints (replicas of one service)
// requests go to. Sticky: the current endpoint serves every request until one fails in
// transport, then the next one takes over (round robin), so keep-alive connections stay
// useful and a dead replica costs one failure, not one per request. A failed endpoint gets its
// turn again once the others failed too. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>

namespace tenure::client {

class EndpointRotation {
 public:
  explicit EndpointRotation(size_t count) : count_(count == 0 ? 1 : count) {}

  size_t size() const { return count_; }
  size_t current() const { return current_.load(); }

  // Reports a transport failure of endpoint `index`. Moves on only when `index` is still the
  // current one, so that several requests failing on the same dead endpoint move on once.
  // Returns the current endpoint afterwards.
  size_t Failed(size_t index);

 private:
  size_t count_;
  std::atomic<size_t> current_{0};
};

// Whether a request that failed in transport may be sent again to another endpoint: reads
// always (GET, HEAD), writes only when they certainly never left this process (`sent` false:
// the connection could not be made). A write whose outcome is unknown is not repeated: the
// caller gets the error and re-reads (client-go semantics; optimistic concurrency then shows
// whether it was applied).
bool MayRetryElsewhere(const std::string& method, bool sent);

// Whether an HTTP answer says that this replica cannot serve now (503: its store is out of
// reach; 504: the request timed out there), so that a client with other endpoints moves on.
bool ReplicaCannotServe(int http_status);

// What one endpoint's try may take of `left`, the time that remains of a call: an even share
// among the `untried` endpoints, at least 1 ms; zero when nothing is left (the request is then
// not sent: it could only time out, and a server must not be told a timeout it cannot keep).
std::chrono::milliseconds EndpointShare(std::chrono::nanoseconds left, size_t untried);

// What the server is told (`?timeout=`) for a try the client waits `share` for: a little less (a
// tenth, at most 200 ms), so that the server's own 504 at that time reaches the client before it
// gives up, and the connection, answered, is kept instead of closed (and, under load, opened and
// handshaken again). At least 1 ms.
std::chrono::milliseconds ServerTimeout(std::chrono::milliseconds share);

}  // namespace tenure::client
