// Election benchmark against a real `tenure serve` process, at the library's default timings
// (15 s / 10 s / 2 s) unless told otherwise:
//   - graceful handover: leader stops with release -> the other candidate's OnStartedLeading;
//   - crash takeover: from the crashed leader's last successful renewal to the successor leading;
//   - requests per minute of an idle (watching) follower;
//   - memory per extra elector with N electors in one process;
//   - the renewal write alone through the library (a Lease lock's Update, one after another),
//     to set beside server_bench's one-client figure.
//   build/bench/election_bench [--handovers 100] [--crashes 3] [--idle-seconds 60]
//                              [--electors 1000] [--renewals 0] [--tenure build/src/cli/tenure]
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "tenure/elector.h"
#include "tenure/kube_locks.h"

extern char** environ;

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

using tenure::bench::PeakRssKiB;
using tenure::bench::Percentile;
using tenure::bench::ProcessCpuSeconds;
using tenure::bench::RssKiB;

struct Flags {
  int handovers = 100;
  int crashes = 3;
  int idle_seconds = 60;
  int electors = 1000;
  int renewals = 0;
  std::string tenure;
};

template <typename Pred>
bool WaitFor(Pred pred, std::chrono::seconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(200us);
  }
  return true;
}

// A `tenure serve` child process in a temporary folder. It dies with the benchmark: a benchmark
// killed early (its output piped into `head`, say) once left the server running, and with it the
// build lock that `flock` had handed down to both.
class ServerProcess {
 public:
  explicit ServerProcess(const std::string& binary) {
    char tmpl[] = "/tmp/tenure-election-bench-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::string data = "--data-dir=" + dir_;
    const std::string log = dir_ + "/serve.log";
    const char* argv[] = {binary.c_str(), "serve",       data.c_str(),
                          "--listen",     "127.0.0.1:0", nullptr};
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      // Only async-signal-safe calls between fork and exec.
      if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(127);
      execve(binary.c_str(), const_cast<char**>(argv), environ);
      _exit(127);
    }
    if (pid_ < 0) pid_ = 0;
    WaitFor([&] { return std::filesystem::exists(dir_ + "/kubeconfig"); }, 20s);
  }
  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove_all(dir_);
  }
  bool ok() const { return pid_ > 0 && std::filesystem::exists(kubeconfig()); }
  pid_t pid() const { return pid_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }

 private:
  std::string dir_;
  pid_t pid_ = 0;
};

// Wraps a lock; Crash() makes every later call hang like a dead process would (until
// Revive), and records when the last successful renewal completed.
class CrashableLock final : public tenure::Lock {
 public:
  explicit CrashableLock(std::shared_ptr<tenure::Lock> inner) : inner_(std::move(inner)) {}
  tenure::Result<tenure::ObservedRecord> Get(Timeout t) override {
    if (Dead()) return tenure::Status::Unavailable("crashed");
    return inner_->Get(t);
  }
  tenure::Result<tenure::ObservedRecord> Create(const tenure::LeaderElectionRecord& r,
                                                Timeout t) override {
    if (Dead()) return tenure::Status::Unavailable("crashed");
    return Track(inner_->Create(r, t));
  }
  tenure::Result<tenure::ObservedRecord> Update(const tenure::LeaderElectionRecord& r,
                                                Timeout t) override {
    if (Dead()) return tenure::Status::Unavailable("crashed");
    return Track(inner_->Update(r, t));
  }
  tenure::Result<tenure::ObservedRecord> UpdateAt(const tenure::LeaderElectionRecord& r,
                                                  int64_t version, Timeout t) override {
    if (Dead()) return tenure::Status::Unavailable("crashed");
    return Track(inner_->UpdateAt(r, version, t));
  }
  std::string Identity() const override { return inner_->Identity(); }
  std::string Describe() const override { return inner_->Describe(); }
  std::unique_ptr<tenure::LockWatch> Watch(
      std::function<void(const tenure::ObservedRecord&)> fn) override {
    return inner_->Watch(std::move(fn));
  }
  // Crashes right after the next successful renewal.
  void CrashAfterNextRenewal() { crash_next_ = true; }
  Clock::time_point last_success() const {
    return Clock::time_point(Clock::duration(last_.load()));
  }
  bool crashed() const { return dead_.load(); }

 private:
  bool Dead() {
    if (!dead_) return false;
    std::this_thread::sleep_for(100ms);  // a dead peer: the call goes nowhere
    return true;
  }
  tenure::Result<tenure::ObservedRecord> Track(tenure::Result<tenure::ObservedRecord> r) {
    if (r.ok()) {
      last_ = Clock::now().time_since_epoch().count();
      if (crash_next_.exchange(false)) dead_ = true;
    }
    return r;
  }
  std::shared_ptr<tenure::Lock> inner_;
  std::atomic<bool> dead_{false}, crash_next_{false};
  std::atomic<Clock::rep> last_{0};
};

// Wraps a lock and stamps when each write is sent and answered and when each watched record
// arrives (steady clock), so that a handover can be cut into its steps.
class StampedLock final : public tenure::Lock {
 public:
  // The elector's watch, seen by WatchActive while it lives.
  class TrackedWatch final : public tenure::LockWatch {
   public:
    TrackedWatch(StampedLock* owner, std::unique_ptr<tenure::LockWatch> inner)
        : owner_(owner), inner_(std::move(inner)) {
      std::lock_guard lock(owner_->mu_);
      owner_->watch_ = inner_.get();
    }
    ~TrackedWatch() override {
      std::lock_guard lock(owner_->mu_);
      if (owner_->watch_ == inner_.get()) owner_->watch_ = nullptr;
    }
    bool active() const override { return inner_ && inner_->active(); }

   private:
    StampedLock* owner_;
    std::unique_ptr<tenure::LockWatch> inner_;
  };
  enum class What { kWriteSent, kWriteAnswered, kWatchedFree, kWatchedHeld };
  struct Stamp {
    Clock::time_point at;
    What what;
  };
  explicit StampedLock(std::shared_ptr<tenure::Lock> inner) : inner_(std::move(inner)) {}
  tenure::Result<tenure::ObservedRecord> Get(Timeout t) override { return inner_->Get(t); }
  tenure::Result<tenure::ObservedRecord> Create(const tenure::LeaderElectionRecord& r,
                                                Timeout t) override {
    return Written([&] { return inner_->Create(r, t); });
  }
  tenure::Result<tenure::ObservedRecord> Update(const tenure::LeaderElectionRecord& r,
                                                Timeout t) override {
    return Written([&] { return inner_->Update(r, t); });
  }
  tenure::Result<tenure::ObservedRecord> UpdateAt(const tenure::LeaderElectionRecord& r,
                                                  int64_t version, Timeout t) override {
    return Written([&] { return inner_->UpdateAt(r, version, t); });
  }
  std::string Identity() const override { return inner_->Identity(); }
  std::string Describe() const override { return inner_->Describe(); }
  std::unique_ptr<tenure::LockWatch> Watch(
      std::function<void(const tenure::ObservedRecord&)> fn) override {
    return std::make_unique<TrackedWatch>(
        this, inner_->Watch([this, fn = std::move(fn)](const tenure::ObservedRecord& r) {
          Add(r.record.holder_identity.empty() ? What::kWatchedFree : What::kWatchedHeld);
          fn(r);
        }));
  }
  // Whether the elector's watch of this lock streams changes now (its first listing done).
  bool WatchActive() const {
    std::lock_guard lock(mu_);
    return watch_ != nullptr && watch_->active();
  }
  // The first stamp of kind `what` at or after `since` (nullopt: none).
  std::optional<Clock::time_point> First(What what, Clock::time_point since) const {
    std::lock_guard lock(mu_);
    for (const Stamp& s : stamps_) {
      if (s.what == what && s.at >= since) return s.at;
    }
    return std::nullopt;
  }

 private:
  template <typename Call>
  tenure::Result<tenure::ObservedRecord> Written(Call call) {
    Add(What::kWriteSent);
    auto result = call();
    Add(What::kWriteAnswered);
    return result;
  }
  void Add(What what) {
    std::lock_guard lock(mu_);
    if (stamps_.size() > 4096) stamps_.erase(stamps_.begin(), stamps_.begin() + 2048);
    stamps_.push_back({Clock::now(), what});
  }
  std::shared_ptr<tenure::Lock> inner_;
  mutable std::mutex mu_;
  std::vector<Stamp> stamps_;
  tenure::LockWatch* watch_ = nullptr;  // guarded by mu_
};

struct Candidate {
  std::shared_ptr<tenure::Elector> elector;
  std::unique_ptr<tenure::ElectionHandle> handle;
  std::atomic<Clock::rep> started_at{0};
  std::atomic<int> terms{0};
};

std::unique_ptr<Candidate> StartCandidate(std::shared_ptr<tenure::Lock> lock, bool release) {
  auto c = std::make_unique<Candidate>();
  tenure::ElectionConfig config;
  config.lock = std::move(lock);
  config.release_on_cancel = release;
  Candidate* raw = c.get();
  config.callbacks.on_started_leading = [raw](std::stop_token, const tenure::LeaderTerm&) {
    raw->started_at = Clock::now().time_since_epoch().count();
    ++raw->terms;
  };
  config.callbacks.on_stopped_leading = [] {};
  auto elector = tenure::Elector::Create(std::move(config));
  if (!elector.ok()) {
    std::fprintf(stderr, "elector: %s\n", elector.status().ToString().c_str());
    std::exit(1);
  }
  c->elector = std::move(*elector);
  c->handle = std::make_unique<tenure::ElectionHandle>(c->elector);
  return c;
}

std::shared_ptr<tenure::Cluster> Connect(const ServerProcess& server) {
  auto cluster = tenure::Cluster::Connect({.kubeconfig = server.kubeconfig()});
  if (!cluster.ok()) {
    std::fprintf(stderr, "connect: %s\n", cluster.status().ToString().c_str());
    std::exit(1);
  }
  return *cluster;
}

// One graceful handover cut into its steps (milliseconds), from the stamps of both locks.
struct HandoverSteps {
  double stop_to_release_sent;      // the old leader's term ends: guard, callbacks, drain
  double release_round_trip;        // the release write, sent to answered
  double release_to_watched;        // release sent -> the follower's watch delivers it
  double watched_to_takeover_sent;  // the follower wakes and writes
  double takeover_round_trip;       // the takeover write, sent to answered
  double answered_to_started;       // -> OnStartedLeading
};

void GracefulHandovers(const ServerProcess& server, int count) {
  auto cluster_a = Connect(server), cluster_b = Connect(server);
  auto lock = [&](std::shared_ptr<tenure::Cluster> c, const char* id) {
    return std::make_shared<StampedLock>(
        tenure::NewLeaseLock(std::move(c), {"default", "handover", id, false}));
  };
  auto leader_lock = lock(cluster_a, "a");
  std::unique_ptr<Candidate> leader = StartCandidate(leader_lock, true);
  WaitFor([&] { return leader->terms.load() == 1; }, 30s);
  auto follower_lock = lock(cluster_b, "b");
  std::unique_ptr<Candidate> follower = StartCandidate(follower_lock, true);
  WaitFor([&] { return follower->elector->Leader() == "a"; }, 30s);
  WaitFor([&] { return follower_lock->WatchActive(); }, 30s);
  std::vector<double> ms;
  std::vector<HandoverSteps> steps;
  bool a_leads = true;
  auto millis = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  };
  for (int i = 0; i < count; ++i) {
    auto stop_at = Clock::now();
    leader->handle->Stop();  // releases the lease
    if (!WaitFor([&] { return follower->terms.load() == 1; }, 30s)) {
      std::printf("graceful handover %d: no takeover within 30 s\n", i);
      return;
    }
    auto started = Clock::time_point(Clock::duration(follower->started_at.load()));
    ms.push_back(millis(stop_at, started));
    using W = StampedLock::What;
    auto release_sent = leader_lock->First(W::kWriteSent, stop_at);
    auto release_answered = leader_lock->First(W::kWriteAnswered, stop_at);
    auto watched = follower_lock->First(W::kWatchedFree, stop_at);
    auto takeover_sent = watched ? follower_lock->First(W::kWriteSent, *watched) : std::nullopt;
    auto takeover_answered =
        takeover_sent ? follower_lock->First(W::kWriteAnswered, *takeover_sent) : std::nullopt;
    if (release_sent && release_answered && watched && takeover_sent && takeover_answered) {
      steps.push_back({millis(stop_at, *release_sent), millis(*release_sent, *release_answered),
                       millis(*release_sent, *watched), millis(*watched, *takeover_sent),
                       millis(*takeover_sent, *takeover_answered),
                       millis(*takeover_answered, started)});
    }
    // The old leader comes back as the follower.
    a_leads = !a_leads;
    leader = std::move(follower);
    std::swap(leader_lock, follower_lock);
    follower_lock = lock(a_leads ? cluster_b : cluster_a, a_leads ? "b" : "a");
    follower = StartCandidate(follower_lock, true);
    std::string current = a_leads ? "a" : "b";
    WaitFor([&] { return follower->elector->Leader() == current; }, 30s);
    // A follower hands over on its watch: measure from a watch that streams, as a candidate
    // that has been running for a while has (its Cluster lists and starts the stream again when
    // its last elector stopped, and that first listing is not what a handover costs).
    WaitFor([&] { return follower_lock->WatchActive(); }, 30s);
  }
  std::printf(
      "graceful handover (stop with release -> successor leading), %d runs: p50 %.1f ms  p99 %.1f "
      "ms  max %.1f ms\n",
      count, Percentile(ms, 0.5), Percentile(ms, 0.99), Percentile(ms, 1.0));
  // Where the time goes, step by step (each step's own percentiles; they do not add up to the
  // total's, and the watch may deliver the release before the release's answer arrives).
  auto step = [&](const char* name, double HandoverSteps::*field) {
    std::vector<double> v;
    for (const auto& s : steps) v.push_back(s.*field);
    std::printf("  %-44s p50 %6.2f ms  p99 %6.2f ms\n", name, Percentile(v, 0.5),
                Percentile(v, 0.99));
  };
  std::printf("  steps of %zu handovers:\n", steps.size());
  step("stop -> release sent (term ends)", &HandoverSteps::stop_to_release_sent);
  step("release sent -> answered", &HandoverSteps::release_round_trip);
  step("release sent -> follower's watch has it", &HandoverSteps::release_to_watched);
  step("watch has it -> takeover sent", &HandoverSteps::watched_to_takeover_sent);
  step("takeover sent -> answered", &HandoverSteps::takeover_round_trip);
  step("takeover answered -> OnStartedLeading", &HandoverSteps::answered_to_started);
}

// One Lease lock renewing as fast as it can, with nobody else on the Lease: the write's round trip
// through the library (record to JSON, pooled TLS connection, reply to record).
void RenewalRoundTrips(const ServerProcess& server, int count) {
  auto lock = tenure::NewLeaseLock(Connect(server), {"default", "renewals", "a", false});
  tenure::LeaderElectionRecord record{.holder_identity = "a", .lease_duration_seconds = 15};
  record.acquire_time = record.renew_time = std::chrono::system_clock::now();
  if (auto created = lock->Create(record, 10s); !created.ok()) {
    std::fprintf(stderr, "create: %s\n", created.status().ToString().c_str());
    return;
  }
  std::vector<double> ms;
  const double cpu_before = ProcessCpuSeconds();
  const double server_cpu_before = tenure::bench::ProcessCpuSecondsOf(server.pid());
  for (int i = 0; i < count; ++i) {
    record.renew_time = std::chrono::system_clock::now();
    auto sent = Clock::now();
    auto updated = lock->Update(record, 10s);
    if (!updated.ok()) {
      std::fprintf(stderr, "renewal %d: %s\n", i, updated.status().ToString().c_str());
      return;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
  }
  const double cpu_us = (ProcessCpuSeconds() - cpu_before) * 1e6 / count;
  const double server_cpu_us =
      (tenure::bench::ProcessCpuSecondsOf(server.pid()) - server_cpu_before) * 1e6 / count;
  std::printf(
      "renewal write through the library, %d in a row: p50 %.2f ms  p99 %.2f ms  max %.2f ms  "
      "(CPU per renewal: this process %.1f us, tenure serve %.1f us)\n",
      count, Percentile(ms, 0.5), Percentile(ms, 0.99), Percentile(ms, 1.0), cpu_us, server_cpu_us);
}

void CrashTakeovers(const ServerProcess& server, int count) {
  std::vector<double> seconds;
  for (int i = 0; i < count; ++i) {
    std::string name = "crash-" + std::to_string(i);
    auto crashable = std::make_shared<CrashableLock>(
        tenure::NewLeaseLock(Connect(server), {"default", name, "a", false}));
    auto leader = StartCandidate(crashable, false);
    WaitFor([&] { return leader->terms.load() == 1; }, 30s);
    auto follower =
        StartCandidate(tenure::NewLeaseLock(Connect(server), {"default", name, "b", false}), false);
    WaitFor([&] { return follower->elector->Leader() == "a"; }, 30s);
    crashable->CrashAfterNextRenewal();
    WaitFor([&] { return crashable->crashed(); }, 30s);
    if (!WaitFor([&] { return follower->terms.load() == 1; }, 60s)) {
      std::printf("crash takeover %d: no takeover within 60 s\n", i);
      return;
    }
    seconds.push_back(std::chrono::duration<double>(
                          Clock::time_point(Clock::duration(follower->started_at.load())) -
                          crashable->last_success())
                          .count());
    leader->handle.reset();
    follower->handle.reset();
  }
  std::printf(
      "crash takeover (last successful renewal -> successor leading), lease 15 s, %d runs: p50 "
      "%.3f s  max %.3f s\n",
      count, Percentile(seconds, 0.5), Percentile(seconds, 1.0));
}

void IdleFollower(const ServerProcess& server, int seconds) {
  auto leader =
      StartCandidate(tenure::NewLeaseLock(Connect(server), {"default", "idle", "a", false}), true);
  WaitFor([&] { return leader->terms.load() == 1; }, 30s);
  auto follower_cluster = Connect(server);
  auto follower =
      StartCandidate(tenure::NewLeaseLock(follower_cluster, {"default", "idle", "b", false}), true);
  WaitFor([&] { return follower->elector->Leader() == "a"; }, 30s);
  std::this_thread::sleep_for(1s);
  uint64_t before = follower_cluster->requests();
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  uint64_t during = follower_cluster->requests() - before;
  std::printf(
      "idle follower: %llu API requests in %d s (%.1f per minute) besides its one watch stream, "
      "while the leader renewed every 2 s\n",
      static_cast<unsigned long long>(during), seconds,
      static_cast<double>(during) * 60.0 / seconds);
}

void ManyElectors(const ServerProcess& server, int count) {
  auto cluster = Connect(server);
  // One elector first, so that connections, the watch and thread machinery exist.
  std::vector<std::unique_ptr<Candidate>> electors;
  electors.push_back(
      StartCandidate(tenure::NewLeaseLock(cluster, {"default", "many-0", "x", false}), true));
  WaitFor([&] { return electors[0]->terms.load() == 1; }, 30s);
  long before = RssKiB();
  for (int i = 1; i < count; ++i) {
    electors.push_back(StartCandidate(
        tenure::NewLeaseLock(cluster, {"default", "many-" + std::to_string(i), "x", false}), true));
  }
  WaitFor(
      [&] {
        for (auto& e : electors) {
          if (e->terms.load() == 0) return false;
        }
        return true;
      },
      120s);
  std::this_thread::sleep_for(3s);  // a few renewal rounds
  long after = RssKiB();
  std::printf(
      "%d electors in one process (one lease each, all leading and renewing): RSS +%ld KiB for %d "
      "extra electors = %.1f KiB per elector\n",
      count, after - before, count - 1, static_cast<double>(after - before) / (count - 1));
  electors.clear();
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  flags.tenure =
      std::filesystem::canonical("/proc/self/exe").parent_path().string() + "/../src/cli/tenure";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string f = argv[i];
    if (f == "--handovers")
      flags.handovers = std::atoi(argv[i + 1]);
    else if (f == "--crashes")
      flags.crashes = std::atoi(argv[i + 1]);
    else if (f == "--idle-seconds")
      flags.idle_seconds = std::atoi(argv[i + 1]);
    else if (f == "--electors")
      flags.electors = std::atoi(argv[i + 1]);
    else if (f == "--renewals")
      flags.renewals = std::atoi(argv[i + 1]);
    else if (f == "--tenure")
      flags.tenure = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  ServerProcess server(flags.tenure);
  if (!server.ok()) {
    std::fprintf(stderr, "cannot start %s serve\n", flags.tenure.c_str());
    return 1;
  }
  std::printf(
      "election benchmark: default timings (lease 15 s, renew deadline 10 s, retry 2 s), tenure "
      "serve on loopback\n");
  if (flags.renewals > 0) RenewalRoundTrips(server, flags.renewals);
  if (flags.handovers > 0) GracefulHandovers(server, flags.handovers);
  if (flags.crashes > 0) CrashTakeovers(server, flags.crashes);
  if (flags.idle_seconds > 0) IdleFollower(server, flags.idle_seconds);
  if (flags.electors > 0) ManyElectors(server, flags.electors);
  return 0;
}
