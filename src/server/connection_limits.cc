// ConnectionLimits: counts of open connections, in all and per client; the open-file limit.
#include "server/connection_limits.h"

#include <sys/resource.h>

namespace tenure::server {

std::shared_ptr<ConnectionLimits> ConnectionLimits::Make(size_t max_total, size_t max_per_client) {
  return std::make_shared<ConnectionLimits>(max_total, max_per_client);
}

ConnectionLimits::ConnectionLimits(size_t max_total, size_t max_per_client)
    : max_total_(max_total), max_per_client_(max_per_client) {}

std::shared_ptr<void> ConnectionLimits::Admit(const std::string& client) {
  {
    std::lock_guard lock(mu_);
    size_t& mine = per_client_[client];
    if (open_ >= max_total_ || mine >= max_per_client_) {
      if (mine == 0) per_client_.erase(client);
      ++rejected_;
      return nullptr;
    }
    ++mine;
    ++open_;
  }
  // The handle owns nothing but its release.
  return std::shared_ptr<void>(static_cast<void*>(this), [self = shared_from_this(), client](
                                                             void*) { self->Release(client); });
}

void ConnectionLimits::Release(const std::string& client) {
  std::lock_guard lock(mu_);
  --open_;
  auto it = per_client_.find(client);
  if (it != per_client_.end() && --it->second == 0) per_client_.erase(it);
}

size_t ConnectionLimits::open() const {
  std::lock_guard lock(mu_);
  return open_;
}

size_t ConnectionLimits::rejected() const {
  std::lock_guard lock(mu_);
  return rejected_;
}

size_t OpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  return limit.rlim_cur == RLIM_INFINITY ? size_t{1} << 20 : static_cast<size_t>(limit.rlim_cur);
}

size_t RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? size_t{1} << 20 : static_cast<size_t>(limit.rlim_cur);
}

}  // namespace tenure::server
