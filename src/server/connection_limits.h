// ConnectionLimits: how many connections the server keeps open, in all and per client address,
// so that thousands of idle connections from one client cannot take every file descriptor
// (past the limit a new connection is closed at once). Also raises the process's soft limit on
// open files to its hard limit. Thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tenure::server {

class ConnectionLimits : public std::enable_shared_from_this<ConnectionLimits> {
 public:
  // Made shared: every place's handle keeps the limits alive.
  static std::shared_ptr<ConnectionLimits> Make(size_t max_total, size_t max_per_client);
  ConnectionLimits(size_t max_total, size_t max_per_client);

  // A place for one connection from `client` (its IP address), freed when the returned handle
  // is destroyed; null when a limit is reached.
  std::shared_ptr<void> Admit(const std::string& client);

  size_t open() const;
  size_t rejected() const;

 private:
  void Release(const std::string& client);

  const size_t max_total_;
  const size_t max_per_client_;
  mutable std::mutex mu_;
  size_t open_ = 0;
  size_t rejected_ = 0;
  std::map<std::string, size_t> per_client_;
};

// RLIMIT_NOFILE's soft limit now.
size_t OpenFileLimit();
// Raises RLIMIT_NOFILE's soft limit to the hard limit (`tenure serve` does, at start; not the
// library nor `tenure run`, whose command would inherit it); returns the soft limit in effect.
size_t RaiseOpenFileLimit();

}  // namespace tenure::server
