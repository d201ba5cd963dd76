// Leadership: Spring-style on_granted/on_revoked terms over an Elector; LeaderElectionInfoJson.
#include "tenure/leadership.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>

namespace tenure {

void LeadershipContext::Yield() const {
  if (elector != nullptr && !stop.stop_requested()) elector->Yield();
}

namespace {

// Blocks until `stop` fires.
void WaitForStop(std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait(lock, stop, [] { return false; });
}

// Counts ended and revoked terms, so that the election thread can wait for the term thread.
class TermOrder {
 public:
  void Revoked() {
    {
      std::lock_guard lock(mu_);
      ++revoked_;
    }
    cv_.notify_all();
  }
  void WaitForRevoked() {
    std::unique_lock lock(mu_);
    uint64_t term = ++ended_;
    cv_.wait(lock, [&] { return revoked_ >= term; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t ended_ = 0;
  uint64_t revoked_ = 0;
};

}  // namespace

Result<std::unique_ptr<Leadership>> Leadership::Create(LeadershipOptions options) {
  if (!options.on_granted) return Status(Reason::kInvalid, "on_granted must be set");
  if (options.election.callbacks.on_started_leading ||
      options.election.callbacks.on_stopped_leading) {
    return Status(Reason::kInvalid,
                  "election.callbacks.on_started_leading/on_stopped_leading are provided by "
                  "Leadership: use on_granted/on_revoked");
  }
  std::unique_ptr<Leadership> self(new Leadership());
  self->ready_ = std::move(options.ready_to_campaign);
  // The elector calls back into the Leadership through this slot, filled once it exists.
  auto elector_slot = std::make_shared<std::atomic<Elector*>>(nullptr);
  auto role = std::make_shared<std::string>();
  auto order = std::make_shared<TermOrder>();
  ElectionConfig config = std::move(options.election);
  config.callbacks.on_started_leading =
      [elector_slot, role, order, granted = std::move(options.on_granted),
       revoked = std::move(options.on_revoked)](std::stop_token stop, const LeaderTerm& term) {
        LeadershipContext context{*role, term, stop, elector_slot->load()};
        granted(context);
        WaitForStop(stop);
        if (revoked) revoked(context);
        order->Revoked();
      };
  // Runs once per term on the election's thread, after the term's token fired: waiting here for
  // that term's on_revoked keeps the next term's on_granted after it.
  config.callbacks.on_stopped_leading = [order] { order->WaitForRevoked(); };
  auto elector = Elector::Create(std::move(config));
  if (!elector.ok()) return elector.status();
  self->elector_ = std::shared_ptr<Elector>(std::move(*elector));
  elector_slot->store(self->elector_.get());
  self->role_ = options.role.empty() ? self->elector_->config().name : options.role;
  *role = self->role_;
  return self;
}

void Leadership::Run(std::stop_token stop) {
  const ElectionConfig& config = elector_->config();
  while (ready_ && !ready_()) {
    if (!config.clock->SleepFor(config.retry_period, stop)) return;
  }
  campaigning_ = true;
  elector_->Run(stop);
}

std::string Leadership::InfoJson() const { return LeaderElectionInfoJson(*elector_, role_); }

std::string LeaderElectionInfoJson(const Elector& elector, std::string_view role) {
  std::string leader = elector.Leader();
  nlohmann::json info = {
      {"leaderId", leader.empty() ? nlohmann::json(nullptr) : nlohmann::json(leader)},
      {"role", std::string(role)},
      {"isLeader", elector.IsLeader()}};
  return nlohmann::json{{"leaderElection", info}}.dump();
}

}  // namespace tenure
