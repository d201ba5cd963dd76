// Coordinated leader election benchmark: an in-process tenure server (TLS, temporary data folder,
// port 0) with the coordination controller started as `tenure serve` starts it, and candidates
// as child processes (this binary re-executed with --candidate), each a CandidateRegistrar plus
// an Elector with ElectionConfig::coordinated on a LeaseLock. Repeated rounds, each on a Lease of
// its own:
//   - preemption: a leader (1.34.0/1.34.0) has led for longer than the ack window; a better
//     candidate (emulation 1.33.0) starts and registers. Measured from the start of its
//     registration to its on_started_leading; every round checks that the old leader's stop
//     token fired before the winner started leading.
//   - death: the best candidate (1.33.0/1.33.0) leads, a second one (1.34.0/1.33.0) waits; the
//     leader is SIGKILLed, so it neither releases the lease nor deletes its LeaseCandidate nor
//     answers pings. Measured from the kill, and from the dead leader's last renewal (the
//     lease's renewTime), to the successor's on_started_leading.
// Both at Kubernetes' controller timings (leases written with 5 s, ack window 5 s) and at short
// ones. Candidates use the controller's lease duration, renew deadline 0.6x and retry 0.2x of it.
//   build/bench/coordination_bench [--rounds 20] [--lease 5] [--election 5]
//                                  [--short-lease 1] [--short-election 0.5]
//   (--rounds 0 for a profile: --lease 0 or --short-lease 0 skips it)
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/api_paths.h"
#include "api/kinds.h"
#include "api/time.h"
#include "bench/bench_util.h"
#include "client/kube_client.h"
#include "coordination/controller.h"
#include "election/cluster_access.h"
#include "tenure/candidate.h"
#include "tenure/elector.h"
#include "tenure/kube_locks.h"
#include "testing/in_process_server.h"

extern char** environ;

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

namespace {

using tenure::bench::Percentile;

int64_t SteadyNs() { return SteadyClock::now().time_since_epoch().count(); }
int64_t SystemNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// ---------------------------------------------------------------------------------------------
// Child: one candidate. Reports "<event> <numbers...>" lines on stdout, one write() each.

void Emit(const std::string& line) {
  std::string text = line + "\n";
  if (write(STDOUT_FILENO, text.data(), text.size()) < 0) _exit(3);
}

// argv: --candidate KUBECONFIG LEASE IDENTITY BINARY EMULATION LEASE_MS
int RunCandidate(char** argv) {
  std::string kubeconfig = argv[2], lease = argv[3], identity = argv[4], binary = argv[5],
              emulation = argv[6];
  auto lease_duration = std::chrono::milliseconds(std::atoll(argv[7]));
  // SIGTERM is a clean shutdown (release, delete the candidate), handled by sigwait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto cluster = tenure::Cluster::Connect({.kubeconfig = kubeconfig});
  if (!cluster.ok()) {
    std::fprintf(stderr, "candidate %s: %s\n", identity.c_str(),
                 cluster.status().ToString().c_str());
    return 1;
  }
  tenure::ElectionConfig config;
  config.lock = tenure::NewLeaseLock(*cluster, {"default", lease, identity, false});
  config.coordinated = true;
  config.release_on_cancel = true;
  config.lease_duration = lease_duration;
  config.renew_deadline = lease_duration * 6 / 10;
  config.retry_period = lease_duration * 2 / 10;
  config.recontend_after = config.retry_period;  // a component stays a candidate
  config.callbacks.on_started_leading = [](std::stop_token stop, const tenure::LeaderTerm&) {
    Emit("leading " + std::to_string(SteadyNs()) + " " + std::to_string(SystemNs()));
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait(lock, stop, [] { return false; });
    Emit("stopped " + std::to_string(SteadyNs()));
  };
  config.callbacks.on_stopped_leading = [] {};
  auto elector = tenure::Elector::Create(std::move(config));
  if (!elector.ok()) {
    std::fprintf(stderr, "candidate %s: %s\n", identity.c_str(),
                 elector.status().ToString().c_str());
    return 1;
  }
  tenure::ElectionHandle handle(std::shared_ptr<tenure::Elector>(std::move(*elector)));

  tenure::CandidateOptions options;
  options.namespace_ = "default";
  options.identity = identity;
  options.lease_name = lease;
  options.binary_version = binary;
  options.emulation_version = emulation;
  Emit("registering " + std::to_string(SteadyNs()));
  auto registrar = tenure::CandidateRegistrar::Start(*cluster, options);
  if (!registrar.ok()) {
    std::fprintf(stderr, "candidate %s: %s\n", identity.c_str(),
                 registrar.status().ToString().c_str());
    return 1;
  }
  Emit("registered " + std::to_string(SteadyNs()));
  int signal = 0;
  sigwait(&signals, &signal);
  (void)(*registrar)->Stop();
  handle.Stop();
  _exit(0);  // the term's callback thread may still be emitting; nothing else to clean up
}

// ---------------------------------------------------------------------------------------------
// Parent.

// A candidate child process and the first occurrence of each event it reported.
class CandidateProcess {
 public:
  CandidateProcess(const std::string& self, const std::vector<std::string>& args) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    std::vector<std::string> all = {self, "--candidate"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    if (posix_spawn(&pid_, self.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid_ = 0;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    reader_ = std::thread([this, fd = fds[0]] { Read(fd); });
  }
  ~CandidateProcess() {
    if (pid_ > 0 && !killed_) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (reader_.joinable()) reader_.join();
  }
  CandidateProcess(const CandidateProcess&) = delete;
  CandidateProcess& operator=(const CandidateProcess&) = delete;

  // A crash: no release, no deletion of the LeaseCandidate, no more acks.
  void Kill() {
    if (pid_ <= 0 || killed_) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    killed_ = true;
  }
  // The numbers of the first `event` line; nullopt on timeout or when the process ended.
  std::optional<std::vector<int64_t>> Wait(const std::string& event,
                                           std::chrono::nanoseconds timeout) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return events_.count(event) || eof_; });
    auto it = events_.find(event);
    if (it == events_.end()) return std::nullopt;
    return it->second;
  }

 private:
  void Read(int fd) {
    FILE* in = fdopen(fd, "r");
    char line[256];
    while (in && std::fgets(line, sizeof line, in)) {
      std::istringstream words(line);
      std::string event;
      words >> event;
      std::vector<int64_t> numbers;
      for (int64_t n; words >> n;) numbers.push_back(n);
      std::lock_guard lock(mu_);
      events_.try_emplace(event, std::move(numbers));
      cv_.notify_all();
    }
    if (in) std::fclose(in);
    std::lock_guard lock(mu_);
    eof_ = true;
    cv_.notify_all();
  }

  pid_t pid_ = 0;
  bool killed_ = false;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<int64_t>> events_;
  bool eof_ = false;
};

struct Profile {
  std::string name;
  std::chrono::seconds lease;
  std::chrono::nanoseconds election;
};

struct Bench {
  std::string self;
  std::string kubeconfig;
  std::shared_ptr<tenure::Cluster> cluster;
  int rounds = 20;
  std::mt19937 random{std::random_device{}()};

  std::unique_ptr<CandidateProcess> Spawn(const Profile& p, const std::string& lease,
                                          const std::string& id, const std::string& binary,
                                          const std::string& emulation) {
    return std::make_unique<CandidateProcess>(
        self, std::vector<std::string>{
                  kubeconfig, lease, id, binary, emulation,
                  std::to_string(
                      std::chrono::duration_cast<std::chrono::milliseconds>(p.lease).count())});
  }

  // The lease's spec.renewTime, in ns since the epoch.
  std::optional<int64_t> LeaseRenewTime(const std::string& lease) {
    auto object = KubeClientOf(*cluster).Call(
        "GET", tenure::api::ObjectPath(tenure::api::LeaseKind(), "v1", "default", lease), nullptr,
        5s);
    if (!object.ok()) return std::nullopt;
    auto t = tenure::api::ParseTime(object->value("/spec/renewTime"_json_pointer, std::string()));
    if (!t) return std::nullopt;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t->time_since_epoch()).count();
  }

  // The longest one step of a round may take before the round is reported as failed.
  static std::chrono::nanoseconds StepTimeout(const Profile& p) {
    return p.lease * 4 + p.election * 4 + 30s;
  }

  // Round `i`'s first candidate (binary and emulation `version`), once it leads its Lease
  // ("<round>-<profile>-<i>"); nullptr (reported) when it does not lead in time.
  std::unique_ptr<CandidateProcess> FirstLeader(const Profile& p, const char* round, int i,
                                                const std::string& id, const std::string& version) {
    std::string lease = std::string(round) + "-" + p.name + "-" + std::to_string(i);
    auto leader = Spawn(p, lease, id + "-" + std::to_string(i), version, version);
    if (leader->Wait("leading", StepTimeout(p))) return leader;
    std::printf("%s round %d: the first candidate never led\n", round, i);
    return nullptr;
  }

  // Returns {registration -> winner leading} in ms per completed round; counts rounds in which
  // the old leader's term had not ended before the winner started.
  std::vector<double> Preemptions(const Profile& p, int& overlaps) {
    std::vector<double> ms;
    auto wait = StepTimeout(p);
    for (int i = 0; i < rounds; ++i) {
      std::string lease = "preempt-" + p.name + "-" + std::to_string(i);
      auto old_leader = FirstLeader(p, "preempt", i, "old", "1.34.0");
      if (!old_leader) continue;
      // A long-standing leader: its candidate's renewTime is older than the ack window, so the
      // election pings it as it would in a running cluster.
      std::this_thread::sleep_for(p.election + 200ms);
      auto winner = Spawn(p, lease, "new-" + std::to_string(i), "1.34.0", "1.33.0");
      auto registering = winner->Wait("registering", wait);
      auto leading = winner->Wait("leading", wait);
      if (!registering || !leading) {
        std::printf("preemption round %d: the better candidate never led\n", i);
        continue;
      }
      ms.push_back(static_cast<double>((*leading)[0] - (*registering)[0]) / 1e6);
      auto stopped = old_leader->Wait("stopped", 1s);  // its line may still be in the pipe
      if (!stopped || (*stopped)[0] > (*leading)[0]) ++overlaps;
    }
    return ms;
  }

  // {kill -> successor leading} and {last renewal -> successor leading}, in ms.
  void Deaths(const Profile& p, std::vector<double>& from_kill, std::vector<double>& from_renewal) {
    auto wait = StepTimeout(p);
    for (int i = 0; i < rounds; ++i) {
      std::string lease = "death-" + p.name + "-" + std::to_string(i);
      auto leader = FirstLeader(p, "death", i, "best", "1.33.0");
      if (!leader) continue;
      auto successor = Spawn(p, lease, "next-" + std::to_string(i), "1.34.0", "1.33.0");
      if (!successor->Wait("registered", wait)) {
        std::printf("death round %d: the second candidate did not register\n", i);
        continue;
      }
      // Die at a random point of the leader's renewal cycle.
      std::uniform_int_distribution<int64_t> phase(
          0, (std::chrono::nanoseconds(p.lease) * 2 / 10).count());  // the retry period
      std::this_thread::sleep_for(std::chrono::nanoseconds(phase(random)));
      int64_t killed_at = SteadyNs();
      leader->Kill();
      auto renewed = LeaseRenewTime(lease);
      auto leading = successor->Wait("leading", wait);
      if (!leading) {
        std::printf("death round %d: the successor never led\n", i);
        continue;
      }
      from_kill.push_back(static_cast<double>((*leading)[0] - killed_at) / 1e6);
      if (renewed) from_renewal.push_back(static_cast<double>((*leading)[1] - *renewed) / 1e6);
    }
  }
};

void Row(const char* what, const std::vector<double>& ms) {
  if (ms.empty()) {
    std::printf("  %-46s      0 rounds\n", what);
    return;
  }
  std::printf("  %-46s %6zu %10.1f %10.1f %10.1f\n", what, ms.size(), Percentile(ms, 0.5),
              Percentile(ms, 0.99), Percentile(ms, 1.0));
}

void RunProfile(Bench& bench, const Profile& p) {
  tenure::coordination::ControllerOptions options;  // as `tenure serve` sets them
  options.timings.lease_duration = p.lease;
  options.timings.election_duration = p.election;
  options.log = [](const std::string&) {};
  auto controller = tenure::coordination::Controller::Start(bench.cluster, options);
  if (!controller.ok()) {
    std::printf("controller: %s\n", controller.status().ToString().c_str());
    return;
  }
  auto deadline = SteadyClock::now() + 60s;
  while (!(*controller)->IsLeading() && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  double lease_s = static_cast<double>(p.lease.count());
  double election_s = std::chrono::duration<double>(p.election).count();
  std::printf(
      "\n%s: controller writes leases of %.0f s, ack window %.1f s; candidates lease "
      "%.1f s / renew %.1f s / retry %.1f s\n",
      p.name.c_str(), lease_s, election_s, lease_s, lease_s * 0.6, lease_s * 0.2);
  int overlaps = 0;
  std::vector<double> preempt = bench.Preemptions(p, overlaps);
  std::vector<double> from_kill, from_renewal;
  bench.Deaths(p, from_kill, from_renewal);
  std::printf("  %-46s %6s %10s %10s %10s\n", "(ms)", "rounds", "p50", "p99", "max");
  Row("preemption: registration -> winner leads", preempt);
  Row("death: SIGKILL of leader -> successor leads", from_kill);
  Row("death: last renewal -> successor leads", from_renewal);
  std::printf("  old leader's term ended before the winner led: %zu of %zu rounds\n",
              preempt.size() - static_cast<size_t>(overlaps), preempt.size());
  (*controller)->Stop();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 8 && std::string(argv[1]) == "--candidate") return RunCandidate(argv);
  Bench bench;
  bench.self = std::filesystem::canonical("/proc/self/exe").string();
  double lease = 5, election = 5, short_lease = 1, short_election = 0.5;
  for (int i = 1; i < argc; i += 2) {
    std::string f = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "flag %s needs a value\n", argv[i]);
      return 2;
    }
    double v = std::atof(argv[i + 1]);
    if (f == "--rounds")
      bench.rounds = static_cast<int>(v);
    else if (f == "--lease")
      lease = v;
    else if (f == "--election")
      election = v;
    else if (f == "--short-lease")
      short_lease = v;
    else if (f == "--short-election")
      short_election = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (bench.rounds < 1 || lease < 0 || short_lease < 0 || election <= 0 || short_election <= 0 ||
      lease != static_cast<int>(lease) || short_lease != static_cast<int>(short_lease)) {
    std::fprintf(stderr,
                 "--rounds must be >= 1, leases whole seconds (0 skips), ack windows > 0\n");
    return 2;
  }

  auto server = tenure::testing::InProcessServer::Start();
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", server.status().ToString().c_str());
    return 1;
  }
  bench.kubeconfig = (*server)->credentials().kubeconfig_file;
  auto cluster = (*server)->Connect();
  if (!cluster.ok()) {
    std::fprintf(stderr, "connect: %s\n", cluster.status().ToString().c_str());
    return 1;
  }
  bench.cluster = *cluster;
  std::printf(
      "coordinated election benchmark: in-process tenure server (TLS, loopback), "
      "candidates as child processes, %d rounds per figure\n",
      bench.rounds);
  auto as_ns = [](double s) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
  };
  if (lease > 0) {
    RunProfile(bench,
               {"kubernetes", std::chrono::seconds(static_cast<int>(lease)), as_ns(election)});
  }
  if (short_lease > 0) {
    RunProfile(bench, {"short", std::chrono::seconds(static_cast<int>(short_lease)),
                       as_ns(short_election)});
  }
  bench.cluster.reset();
  return 0;
}
