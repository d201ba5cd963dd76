// RunEndpoints: the small plain-HTTP server of `tenure run --listen ADDR`:
//   GET /healthz  200 "ok", or 503 "[-]leaderElection failed: ..." when the leader is wedged
//                 (LeaderElectionHealthCheck)
//   GET /readyz   200 "ok", or 503 when not ready (the caller decides what ready means)
//   GET /metrics  Prometheus text format 0.0.4
//   GET /info     {"leaderElection":{"leaderId":...,"role":...,"isLeader":...}}
// Anything else is 404 (405 for another method). Loopback unless ADDR names another host.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "tenure/status.h"

namespace tenure::cli {

struct EndpointSources {
  std::function<Status()> health;
  std::function<Status()> ready;
  std::function<std::string()> metrics;
  std::function<std::string()> info;
};

class RunEndpoints {
 public:
  // `listen` as ParseListenAddress (listen_address.h) accepts.
  static Result<std::unique_ptr<RunEndpoints>> Start(const std::string& listen,
                                                     EndpointSources sources);
  virtual ~RunEndpoints() = default;
  virtual uint16_t port() const = 0;
  // "http://HOST:PORT" with the bound port (IPv6 hosts in brackets).
  virtual std::string url() const = 0;
  virtual void Stop() = 0;
};

}  // namespace tenure::cli
