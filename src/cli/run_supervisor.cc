// RunWhileLeader: `tenure run`'s supervisor, running the command only during a granted term.
#include "cli/run_supervisor.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "cli/child_process.h"
#include "cli/run_cluster.h"
#include "cli/run_endpoints.h"
#include "tenure/candidate.h"
#include "tenure/health.h"
#include "tenure/identity.h"
#include "tenure/kube_locks.h"
#include "tenure/leadership.h"
#include "tenure/log.h"
#include "tenure/metrics.h"

namespace tenure::cli {

namespace {

using Steady = std::chrono::steady_clock;
constexpr auto kReapPoll = std::chrono::milliseconds(5);

void Log(const std::string& message) { tenure::Log(LogLevel::kInfo, "run", message); }
// Something failed or had to be forced: a warning, kept by --log-level warning.
void Warn(const std::string& message) { tenure::Log(LogLevel::kWarning, "run", message); }

// Term events handed from the election's threads to the main thread, which waits on fd().
class TermEvents {
 public:
  struct Event {
    bool granted;  // false: revoked
    LeadershipContext context;
  };
  TermEvents() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~TermEvents() { close(fd_); }
  int fd() const { return fd_; }
  void Push(Event event) {
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(event));
    }
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
  }
  std::deque<Event> Take() {
    uint64_t count;
    [[maybe_unused]] ssize_t n = read(fd_, &count, sizeof count);
    std::lock_guard lock(mu_);
    return std::exchange(queue_, {});
  }

 private:
  int fd_;
  std::mutex mu_;
  std::deque<Event> queue_;
};

// Counters of the command for /metrics.
struct CommandStats {
  std::atomic<bool> running{false};
  std::atomic<uint64_t> starts{0};
};

std::string CommandMetrics(const std::string& name, const CommandStats& stats) {
  std::string label = "{name=\"" + name + "\"} ";  // namespace/name: no characters to escape
  return "# HELP tenure_run_command_running Whether tenure run's command is running (1) or not "
         "(0).\n"
         "# TYPE tenure_run_command_running gauge\n"
         "tenure_run_command_running" +
         label + (stats.running ? "1" : "0") +
         "\n"
         "# HELP tenure_run_command_starts_total Times tenure run started its command.\n"
         "# TYPE tenure_run_command_starts_total counter\n"
         "tenure_run_command_starts_total" +
         label + std::to_string(stats.starts.load()) + "\n";
}

// The readiness gate for waitForPodReady; logs only when what it sees changes.
std::function<bool()> PodReadyGate(std::shared_ptr<Cluster> cluster, PodRef pod) {
  auto last = std::make_shared<std::string>();
  return [cluster, pod, last] {
    auto ready = PodIsReady(*cluster, pod);
    std::string seen = !ready.ok() ? "cannot read pod " + pod.namespace_ + "/" + pod.name + ": " +
                                         ready.status().ToString()
                       : *ready
                           ? "pod " + pod.namespace_ + "/" + pod.name + " is Ready: campaigning"
                           : "waiting for pod " + pod.namespace_ + "/" + pod.name + " to be Ready";
    if (seen != *last) Log(seen);
    *last = seen;
    return ready.ok() && *ready;
  };
}

class Supervisor {
 public:
  Supervisor(const RunSettings& settings, std::vector<std::string> command)
      : settings_(settings), command_(std::move(command)) {}

  int Run();

 private:
  Status Setup();
  void OnGranted(const LeadershipContext& context);
  void OnRevoked(const LeadershipContext& context);
  void OnChildExit(int status);
  void OnSignal(int signal);
  void StartCommand(const LeadershipContext& context);
  // The command of this term (by fencing token) is no longer running: marks it, and lets
  // WaitUntilCommandGone return.
  void CommandGone();
  // On the term's thread, after its stop token fired: until the command started for that term
  // has exited, so that a graceful handover releases the lease only once it is gone.
  void WaitUntilCommandGone(uint64_t token);

  RunSettings settings_;
  std::vector<std::string> command_;
  std::string namespace_;
  // Declared before the election so they outlive its threads (which push term events).
  TermEvents events_;
  CommandStats stats_;
  std::shared_ptr<Cluster> cluster_;
  std::unique_ptr<CandidateRegistrar> registrar_;
  std::unique_ptr<Leadership> leadership_;
  LeaderElectionHealthCheck health_;
  std::unique_ptr<RunEndpoints> endpoints_;  // destroyed first: it reads the ones above

  std::optional<ChildProcess> child_;
  std::optional<LeadershipContext> child_term_;    // the term the command runs for
  std::optional<LeadershipContext> pending_term_;  // granted while the last command still stops
  bool stopping_child_ = false;                    // its term ended: we are stopping it
  std::optional<Steady::time_point> kill_at_;
  bool shutting_down_ = false;
  bool release_at_exit_ = false;
  std::optional<int> exit_status_;
  // The term whose command runs (its fencing token; 0: none), shared with the term threads.
  std::mutex command_mu_;
  std::condition_variable command_cv_;
  uint64_t command_term_ = 0;
};

void Supervisor::CommandGone() {
  {
    std::lock_guard lock(command_mu_);
    command_term_ = 0;
  }
  command_cv_.notify_all();
}

void Supervisor::WaitUntilCommandGone(uint64_t token) {
  std::unique_lock lock(command_mu_);
  command_cv_.wait(lock, [&] { return command_term_ != token; });
}

Status Supervisor::Setup() {
  ClusterOptions cluster_options{.kubeconfig = settings_.kubeconfig, .context = settings_.context};
  if (!settings_.servers.empty()) cluster_options.servers = {settings_.servers};
  auto cluster = Cluster::Connect(cluster_options);
  if (!cluster.ok()) return cluster.status();
  cluster_ = *cluster;
  namespace_ =
      settings_.lock_namespace.empty() ? cluster_->default_namespace() : settings_.lock_namespace;
  if (settings_.identity.empty()) settings_.identity = UniqueIdentity();
  bool configmap = settings_.use_config_map_as_lock;
  if (!configmap) {
    auto leases = ServesLeases(*cluster_);
    if (!leases.ok()) {
      Warn("discovery of coordination.k8s.io/v1 failed (" + leases.status().ToString() +
           "): assuming Leases are served");
    } else if (!*leases) {
      Log("the server does not serve coordination.k8s.io/v1 leases: using a ConfigMap lock");
      configmap = true;
    }
  }
  KubeLockOptions lock_options{namespace_, settings_.lock_name, settings_.identity,
                               settings_.publish_events};
  lock_options.on_event_error = [](const Status& error) {
    Warn("cannot post an Event: " + error.message());
  };
  ElectionConfig election = ElectionTimingsOf(settings_);
  election.lock =
      configmap ? NewConfigMapLock(cluster_, lock_options) : NewLeaseLock(cluster_, lock_options);
  election.name = namespace_ + "/" + settings_.lock_name;
  election.callbacks.on_new_leader = [](const std::string& leader) {
    Log("leader is now " + leader);
  };
  // Why campaigning or renewing fails (a missing right names itself), once per distinct error.
  election.callbacks.on_error = [lock = election.name](const Status& error) {
    Warn("cannot use the lock " + lock + ": " + error.message());
  };

  if (settings_.coordinated) {
    CandidateOptions candidate;
    candidate.namespace_ = namespace_;
    candidate.identity = settings_.identity;
    candidate.lease_name = settings_.lock_name;
    candidate.binary_version = settings_.binary_version;
    candidate.emulation_version = settings_.emulation_version.empty() ? settings_.binary_version
                                                                      : settings_.emulation_version;
    if (!settings_.strategy.empty()) candidate.strategy = settings_.strategy;
    candidate.retry_period = settings_.retry_period;
    candidate.on_error = [name = settings_.identity](const Status& error) {
      Warn("cannot keep the LeaseCandidate " + name + " current: " + error.message());
    };
    auto registrar = CandidateRegistrar::Start(cluster_, std::move(candidate));
    if (!registrar.ok()) return registrar.status();
    registrar_ = std::move(*registrar);
  }

  LeadershipOptions options;
  options.election = std::move(election);
  options.role = settings_.role.empty() ? settings_.lock_name : settings_.role;
  options.on_granted = [this](const LeadershipContext& c) { events_.Push({true, c}); };
  options.on_revoked = [this](const LeadershipContext& c) {
    events_.Push({false, c});
    WaitUntilCommandGone(c.term.fencing_token);
  };
  if (settings_.wait_for_pod_ready) {
    PodRef pod = FindOwnPod(*cluster_);
    if (!pod.name.empty()) {
      if (settings_.ready_only_while_leader) {
        return Status(
            Reason::kInvalid,
            "waitForPodReady and readyOnlyWhileLeader exclude each other in a pod: the pod "
            "would only become Ready once leading, and would only campaign once Ready");
      }
      options.ready_to_campaign = PodReadyGate(cluster_, pod);
    }
  }
  auto leadership = Leadership::Create(std::move(options));
  if (!leadership.ok()) return leadership.status();
  leadership_ = std::move(*leadership);
  health_.Attach(leadership_->elector());

  if (!settings_.listen.empty()) {
    EndpointSources sources;
    sources.health = [this] { return health_.Check(); };
    sources.ready = [this]() -> Status {
      if (settings_.ready_only_while_leader && !leadership_->IsLeader()) {
        return Status::Unavailable("leaderElection: not leading");
      }
      return Status::Ok();
    };
    sources.metrics = [this] {
      return RenderPrometheusMetrics({leadership_->elector().get()}) +
             CommandMetrics(leadership_->elector()->config().name, stats_);
    };
    sources.info = [this] { return leadership_->InfoJson(); };
    auto endpoints = RunEndpoints::Start(settings_.listen, std::move(sources));
    if (!endpoints.ok()) return endpoints.status();
    endpoints_ = std::move(*endpoints);
    Log("endpoints on " + endpoints_->url() + " (/healthz /readyz /metrics /info)");
  }
  Log("candidate " + settings_.identity + " for " + (configmap ? "ConfigMap " : "Lease ") +
      namespace_ + "/" + settings_.lock_name + (settings_.coordinated ? " (coordinated)" : ""));
  return Status::Ok();
}

void Supervisor::StartCommand(const LeadershipContext& context) {
  {
    // Checked with the term marked under one lock: a term whose token fired meanwhile must not
    // start a command its on_revoked no longer waits for.
    std::lock_guard lock(command_mu_);
    if (context.stop.stop_requested()) return;
    command_term_ = context.term.fencing_token;
  }
  auto child = ChildProcess::Spawn(
      command_, {{"TENURE_IDENTITY", context.term.identity},
                 {"TENURE_FENCING_TOKEN", std::to_string(context.term.fencing_token)},
                 {"TENURE_LOCK_NAMESPACE", namespace_},
                 {"TENURE_LOCK_NAME", settings_.lock_name},
                 {"TENURE_ROLE", context.role}});
  if (!child.ok()) {
    CommandGone();
    Warn(child.status().message());
    exit_status_ = 127;  // as a shell reports a command it cannot run
    release_at_exit_ = true;
    return;
  }
  child_ = std::move(*child);
  child_term_ = context;
  stopping_child_ = false;
  stats_.running = true;
  ++stats_.starts;
  Log("leading (fencing token " + std::to_string(context.term.fencing_token) + "): started " +
      command_[0] + " (pid " + std::to_string(child_->pid()) + ")");
}

void Supervisor::OnGranted(const LeadershipContext& context) {
  if (shutting_down_ || exit_status_ || context.stop.stop_requested()) return;
  if (child_) {
    pending_term_ = context;  // the previous term's command is still stopping
    return;
  }
  StartCommand(context);
}

void Supervisor::OnRevoked(const LeadershipContext& context) {
  if (pending_term_ && pending_term_->term.fencing_token == context.term.fencing_token)
    pending_term_.reset();
  if (!child_ || !child_term_ || child_term_->term.fencing_token != context.term.fencing_token)
    return;
  if (stopping_child_) return;
  stopping_child_ = true;
  Log("leadership ended: SIGTERM to the command, SIGKILL in " +
      FormatDuration(settings_.grace_period));
  child_->Signal(SIGTERM);
  kill_at_ = Steady::now() + settings_.grace_period;
}

void Supervisor::OnChildExit(int status) {
  child_.reset();
  CommandGone();
  child_term_.reset();
  kill_at_.reset();
  stats_.running = false;
  Log("command exited with status " + std::to_string(status));
  if (stopping_child_) {
    stopping_child_ = false;
    if (shutting_down_) {
      exit_status_ = status;
    } else if (pending_term_ && !pending_term_->stop.stop_requested()) {
      LeadershipContext next = *pending_term_;
      pending_term_.reset();
      StartCommand(next);
    }
    return;
  }
  if (shutting_down_) {
    exit_status_ = status;
    return;
  }
  // The command ended by itself while leading: it is gone, so the lease can go at once.
  if (settings_.campaign_again) {
    Log("releasing the lease; campaigning again");
    leadership_->Yield();
    return;
  }
  exit_status_ = status;
  release_at_exit_ = true;
}

void Supervisor::OnSignal(int signal) {
  shutting_down_ = true;
  if (child_) {
    Log(std::string("forwarding ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") + " to the command");
    child_->Signal(signal);
    return;
  }
  exit_status_ = 0;
}

int Supervisor::Run() {
  // Before any thread starts: these signals are only read from the signalfd below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) {
    Warn(std::string("signalfd: ") + std::strerror(errno));
    return 1;
  }
  Status s = Setup();
  if (!s.ok()) {
    Warn(s.ToString());
    close(signal_fd);
    return s.reason() == Reason::kInvalid || s.reason() == Reason::kBadRequest ? 2 : 1;
  }
  std::jthread election([this](std::stop_token stop) { leadership_->Run(stop); });

  while (!exit_status_) {
    int timeout_ms = -1;
    if (kill_at_) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*kill_at_ - Steady::now()).count();
      timeout_ms = static_cast<int>(std::max<int64_t>(0, left));
    }
    pollfd fds[2] = {{signal_fd, POLLIN, 0}, {events_.fd(), POLLIN, 0}};
    int n = poll(fds, 2, timeout_ms);
    if (n < 0 && errno != EINTR) {
      Warn(std::string("poll: ") + std::strerror(errno));
      exit_status_ = 1;
      break;
    }
    signalfd_siginfo info;
    while (read(signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      if (info.ssi_signo == SIGCHLD) continue;  // reaped below
      OnSignal(static_cast<int>(info.ssi_signo));
    }
    for (auto& event : events_.Take()) {
      event.granted ? OnGranted(event.context) : OnRevoked(event.context);
    }
    if (child_) {
      if (auto status = child_->TryReap()) OnChildExit(*status);
    }
    if (kill_at_ && child_ && Steady::now() >= *kill_at_) {
      Warn("grace period over: SIGKILL to the command");
      child_->Signal(SIGKILL);
      kill_at_.reset();
    }
  }
  if (child_) {  // only after a failed poll: nothing will stop the command otherwise
    child_->Signal(SIGKILL);
    while (child_->running() && !child_->TryReap()) std::this_thread::sleep_for(kReapPoll);
    child_.reset();
    CommandGone();
  }
  // The command is gone here (or never ran).
  if (release_at_exit_) leadership_->Yield();  // releases the lease if still held
  election.request_stop();
  election.join();
  if (registrar_) registrar_->Stop();
  if (endpoints_) endpoints_->Stop();
  close(signal_fd);
  return *exit_status_;
}

}  // namespace

int RunWhileLeader(const RunSettings& settings, const std::vector<std::string>& command) {
  Supervisor supervisor(settings, command);
  return supervisor.Run();
}

}  // namespace tenure::cli
