// LeaderElectionHealthCheck: client-go's HealthzAdaptor / WatchDog. Healthy while no elector is
// attached or while not leading; unhealthy when leading but the lease has not been renewed for
// longer than lease duration + tolerance (a wedged leader that still believes it leads).
// Plug Check() into a /healthz endpoint under the name "leaderElection".
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tenure/elector.h"
#include "tenure/status.h"

namespace tenure {

class LeaderElectionHealthCheck {
 public:
  std::string name() const { return "leaderElection"; }
  void Attach(std::shared_ptr<const Elector> elector) {
    std::lock_guard lock(mu_);
    elector_ = std::move(elector);
  }
  Status Check() const {
    std::lock_guard lock(mu_);
    if (!elector_ || elector_->Healthy()) return Status::Ok();
    return Status(Reason::kServiceUnavailable,
                  "failed election to renew leadership on lease " + elector_->config().name);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Elector> elector_;
};

}  // namespace tenure
