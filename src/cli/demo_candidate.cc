// `tenure demo-candidate` (hidden): one election candidate as a process, for `tenure demo`.
// It reports what happens as JSON lines, each stamped with the monotonic clock (CLOCK_MONOTONIC
// is system-wide, so the demo can subtract its own readings), to --report (a FIFO the demo
// reads; default standard output). Stops on SIGTERM/SIGINT, releasing the lease.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "cli/inspect_commands.h"
#include "tenure/candidate.h"
#include "tenure/elector.h"
#include "tenure/kube_locks.h"
#include "tenure/log.h"

namespace tenure::cli {

namespace {

using nlohmann::json;

struct CandidateFlags {
  std::string kubeconfig;
  std::string lock;
  std::string identity;
  double lease_duration = 15, renew_deadline = 10, retry_period = 2;
  std::string report;
  bool coordinated = false;
  std::string binary_version, emulation_version;
};

class Reporter {
 public:
  Reporter(int fd, std::string identity) : fd_(fd), identity_(std::move(identity)) {}
  void Send(json line) {
    line["identity"] = identity_;
    line["mono_ns"] = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
    std::string text = line.dump() + "\n";  // one write: lines from several processes never mix
    std::lock_guard lock(mu_);
    [[maybe_unused]] ssize_t n = write(fd_, text.data(), text.size());
  }

 private:
  int fd_;
  std::string identity_;
  std::mutex mu_;
};

std::chrono::nanoseconds Seconds(double s) {
  return std::chrono::nanoseconds(static_cast<int64_t>(s * 1e9));
}

int RunCandidate(const CandidateFlags& flags) {
  // The demo tells its own story; the library's info lines would repeat it (-v shows them).
  if (GetLogLevel() == LogLevel::kInfo) SetLogLevel(LogLevel::kWarning);
  sigset_t signals = BlockStopSignals();

  int fd = 1;
  if (!flags.report.empty()) {
    fd = open(flags.report.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
      std::perror(("tenure demo-candidate: " + flags.report).c_str());
      return 1;
    }
  }
  Reporter report(fd, flags.identity);
  auto fail = [&](const std::string& what, const Status& status) {
    report.Send({{"event", "error"}, {"message", what + ": " + status.ToString()}});
    return 1;
  };
  auto ref = ParseLeaseRef(flags.lock, "default");
  if (!ref.ok()) return fail("--lock", ref.status());
  auto cluster = Cluster::Connect({.kubeconfig = flags.kubeconfig});
  if (!cluster.ok()) return fail("connect", cluster.status());

  std::unique_ptr<CandidateRegistrar> registrar;
  if (flags.coordinated) {
    CandidateOptions options;
    options.namespace_ = ref->first;
    options.identity = flags.identity;
    options.lease_name = ref->second;
    options.binary_version = flags.binary_version;
    options.emulation_version = flags.emulation_version;
    options.retry_period = Seconds(flags.retry_period);
    auto started = CandidateRegistrar::Start(*cluster, options);
    if (!started.ok()) return fail("LeaseCandidate", started.status());
    registrar = std::move(*started);
    report.Send({{"event", "registered"}, {"api_version", registrar->api_version()}});
  }

  ElectionConfig config;
  config.lock = NewLeaseLock(*cluster, {ref->first, ref->second, flags.identity, true});
  config.lease_duration = Seconds(flags.lease_duration);
  config.renew_deadline = Seconds(flags.renew_deadline);
  config.retry_period = Seconds(flags.retry_period);
  config.release_on_cancel = true;
  config.coordinated = flags.coordinated;
  // Coordinated: after a preemption the controller may assign the lease to us again, so stay a
  // candidate; no back-off is needed, the controller decides who leads.
  if (flags.coordinated) config.recontend_after = std::chrono::nanoseconds(0);
  config.callbacks.on_started_leading = [&report](std::stop_token, const LeaderTerm& term) {
    report.Send({{"event", "started"}, {"token", term.fencing_token}});
  };
  config.callbacks.on_stopped_leading = [&report] { report.Send({{"event", "stopped"}}); };
  auto elector = Elector::Create(std::move(config));
  if (!elector.ok()) return fail("elector", elector.status());
  std::shared_ptr<Elector> shared(std::move(*elector));
  {
    ElectionHandle handle(shared);
    report.Send({{"event", "ready"}, {"pid", getpid()}});
    int signal = 0;
    sigwait(&signals, &signal);
    report.Send({{"event", "stopping"}});
    // Withdraw the candidacy before releasing: otherwise the controller could hand the released
    // lease straight back to this (still registered, best-ranked) candidate.
    if (registrar) registrar->Stop();
  }  // ~ElectionHandle: stops the election; a leader releases the lease first
  report.Send({{"event", "released"}});
  report.Send({{"event", "exit"}});
  return 0;
}

}  // namespace

void AddDemoCandidateCommand(CLI::App& app) {
  auto flags = std::make_shared<CandidateFlags>();
  CLI::App* cmd = app.add_subcommand("demo-candidate", "One candidate process of `tenure demo`");
  cmd->group("");  // internal: not listed in --help
  cmd->add_option("--kubeconfig", flags->kubeconfig)->required();
  cmd->add_option("--lock", flags->lock, "NAMESPACE/NAME")->required();
  cmd->add_option("--identity", flags->identity)->required();
  cmd->add_option("--lease-duration", flags->lease_duration);
  cmd->add_option("--renew-deadline", flags->renew_deadline);
  cmd->add_option("--retry-period", flags->retry_period);
  cmd->add_option("--report", flags->report, "FIFO or file for the JSON lines");
  cmd->add_flag("--coordinated", flags->coordinated);
  cmd->add_option("--binary-version", flags->binary_version);
  cmd->add_option("--emulation-version", flags->emulation_version);
  cmd->callback([flags] { std::exit(RunCandidate(*flags)); });
}

}  // namespace tenure::cli
