// Leadership: Spring Cloud Kubernetes' application-facing leader API on top of an Elector.
//
// - on_granted / on_revoked (Spring's OnGrantedEvent / OnRevokedEvent) receive a
//   LeadershipContext: the role, the term (identity, fencing token) and the term's stop token.
//   Both run on the term's own thread: on_granted first (it may return at once, event style, or
//   work until context.stop fires), then, once the term's stop token fired and on_granted
//   returned, on_revoked. Every on_granted is followed by exactly one on_revoked, and the next
//   term's on_granted comes only after it: on_granted must return once context.stop fired (the
//   election waits for it before campaigning again).
// - LeadershipContext::Yield() (Spring's Context.yield()) gives leadership up while staying a
//   candidate: the lease is released and the candidate campaigns again after
//   ElectionConfig::recontend_after (retry_period when unset).
// - A role name (Spring's role; defaults to the election's name), reported in the info document.
// - A readiness gate (Spring's waitForPodReady): Run() campaigns only once ready_to_campaign()
//   returned true, asking again every retry_period on the election's clock.
// - Spring's waitAfterRenewalFailure is ElectionConfig::recontend_after; publishEvents is
//   KubeLockOptions::publish_events.
// - InfoJson(): Spring's info contributor document
//   {"leaderElection":{"leaderId":"pod-1","role":"my-role","isLeader":true}}
//   (leaderId is null while no holder has been observed).
// Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include "tenure/elector.h"
#include "tenure/status.h"

namespace tenure {

// Handed to on_granted / on_revoked; copies are valid while the Leadership exists.
struct LeadershipContext {
  std::string role;
  LeaderTerm term;
  std::stop_token stop;  // fires when the term ends
  // Gives leadership up while staying a candidate (no effect once the term ended).
  void Yield() const;

  Elector* elector = nullptr;
};

struct LeadershipOptions {
  // Lock, timings, recontend_after, clock, on_new_leader. on_started_leading and
  // on_stopped_leading must stay empty: Leadership provides them.
  ElectionConfig election;
  std::string role;  // "" : election.name
  std::function<void(const LeadershipContext&)> on_granted;
  std::function<void(const LeadershipContext&)> on_revoked;
  // Readiness gate checked before campaigning (nullptr: ready at once).
  std::function<bool()> ready_to_campaign;
};

class Leadership {
 public:
  // Invalid when on_granted is missing, when election callbacks are set, or when the election
  // config is invalid (ValidateElectionConfig).
  static Result<std::unique_ptr<Leadership>> Create(LeadershipOptions options);

  // Waits for the readiness gate, then campaigns and leads until `stop` (see Elector::Run).
  void Run(std::stop_token stop);
  // Gives leadership up while staying a candidate (see LeadershipContext::Yield).
  void Yield() { elector_->Yield(); }

  // true once the readiness gate passed.
  bool campaigning() const { return campaigning_.load(); }
  bool IsLeader() const { return elector_->IsLeader(); }
  const std::string& role() const { return role_; }
  std::string InfoJson() const;
  const std::shared_ptr<Elector>& elector() const { return elector_; }

 private:
  Leadership() = default;
  std::string role_;
  std::function<bool()> ready_;
  std::shared_ptr<Elector> elector_;
  std::atomic<bool> campaigning_{false};
};

// Spring's info contributor document for any elector.
std::string LeaderElectionInfoJson(const Elector& elector, std::string_view role);

}  // namespace tenure
