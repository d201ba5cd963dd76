// `tenure demo`: leader election shown live, end to end, in about half a minute. It starts an
// embedded server (TLS, port 0, temporary folder) and candidate processes (this binary's hidden
// `demo-candidate`), kills the leader with SIGKILL, stops the next one gracefully, runs a
// coordinated election with two versions, prints the measured times, and cleans up.
//
// Times are measured on CLOCK_MONOTONIC, which the candidate processes share with the demo:
// a takeover is from the kill to the new leader's first term as that process reports it.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "api/api_paths.h"
#include "api/codec.h"
#include "api/kinds.h"
#include "cli/demo_fleet.h"
#include "cli/holder_timeline.h"
#include "cli/inspect_commands.h"
#include "cli/output_format.h"
#include "client/kube_client.h"
#include "coordination/controller.h"
#include "election/cluster_access.h"
#include "server/server.h"
#include "tenure/log.h"

namespace tenure::cli {

namespace {

using nlohmann::json;
using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Short demo timings; the library's defaults are 15 s / 10 s / 2 s.
constexpr auto kLeaseDuration = 3s;
constexpr auto kRenewDeadline = 2s;
constexpr auto kRetryPeriod = 500ms;
constexpr const char* kNamespace = "demo";
constexpr const char* kLease = "leader";
constexpr const char* kCoordinatedLease = "coordinated";
constexpr auto kElectTimeout = 15s;

struct DemoFlags {
  bool keep = false;
};

// Live output: every line is prefixed with the time since the demo started; lines from the
// candidates' reader thread and the lease watch never interleave.
class DemoLog {
 public:
  explicit DemoLog(Painter painter) : painter_(painter), start_(Steady::now()) {}
  const Painter& painter() const { return painter_; }
  Steady::time_point start() const { return start_; }

  void At(Steady::time_point when, const std::string& text) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%+7.3fs",
                  std::chrono::duration<double>(when - start_).count());
    Line(painter_.Paint(stamp, Color::kDim) + "  " + text);
  }
  void Now(const std::string& text) { At(Steady::now(), text); }
  void Line(const std::string& text) {
    std::lock_guard lock(mu_);
    std::cout << text << std::endl;
  }
  void Section(const std::string& title) {
    Line("\n" + painter_.Paint("== " + title, Color::kBold));
  }
  void Note(const std::string& text) { Line("           " + text); }

 private:
  Painter painter_;
  Steady::time_point start_;
  std::mutex mu_;
};

// The measured times for the summary.
struct Measurements {
  std::optional<Steady::duration> first_election, takeover, handover, coordinated_election,
      coordinated_preemption, coordinated_handover;
  std::string coordinated_skipped;
};

// A configured duration: "3s", "500ms".
std::string Setting(Steady::duration d) {
  return d % std::chrono::seconds(1) == Steady::duration::zero() ? api::HumanDuration(d)
                                                                 : PreciseDuration(d);
}

std::string Padded(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// The lease watch of the demo: one timeline line per holder change, as the server saw it.
class LeaseWatch {
 public:
  LeaseWatch(client::KubeClient& client, const std::string& name, DemoLog& log)
      : name_(name), log_(log) {
    // The demo's server is new: the lease does not exist yet, so its creation is a change.
    timeline_.Observe(std::chrono::system_clock::now(), std::nullopt);
    subscription_ = client.WatchObject(
        LeaseApi::LeasesPath(kNamespace), name,
        [this](const std::string& type, const json& object) {
          std::optional<api::Lease> lease;
          if (type != "DELETED") {
            auto parsed = api::LeaseFromJson(object);
            if (!parsed.ok()) return;
            lease = std::move(*parsed);
          }
          auto change = timeline_.Observe(std::chrono::system_clock::now(), lease);
          if (!change || change->kind == HolderChange::Kind::kInitial) return;
          log_.Now(log_.painter().Paint("lease " + name_ + ": ", Color::kCyan) +
                   DescribeChange(*change, log_.painter()));
        });
  }

 private:
  std::string name_;
  DemoLog& log_;
  HolderTimeline timeline_;  // only the watch thread touches it
  std::unique_ptr<client::Subscription> subscription_;
};

class Demo {
 public:
  Demo(DemoLog& log, const std::string& folder) : log_(log), folder_(folder) {}

  // Runs every step; false when one failed (the reason was printed).
  bool Run(Measurements& m) {
    return StartServer() && StartCandidates(m) && Crash(m) && Handover(m) && Coordinated(m);
  }

  // From the signal thread.
  void Interrupt() {
    std::lock_guard lock(fleet_mu_);
    interrupted_ = true;
    if (fleet_) fleet_->Interrupt();
  }

  // Stops everything; returns the line saying what was cleaned up.
  std::string CleanUp() {
    size_t processes = spawned_;
    size_t killed = 0;
    watches_.clear();
    if (fleet_) killed = fleet_->StopAll(5s);
    {
      std::lock_guard lock(fleet_mu_);
      fleet_.reset();
    }
    if (controller_) controller_->Stop();
    controller_.reset();
    client_.reset();
    if (server_) server_->Stop();
    server_.reset();
    std::string text = "all " + std::to_string(processes) + " candidate processes ended";
    if (killed > 0) text += " (" + std::to_string(killed) + " needed SIGKILL)";
    return text + ", server stopped";
  }

 private:
  bool Fail(const std::string& why) {
    if (!interrupted_) log_.Line(log_.painter().Paint("demo failed: " + why, Color::kRed));
    return false;
  }

  bool StartServer() {
    log_.Section("A tenure server");
    server::ServerOptions options;
    options.data_dir = folder_ + "/data";
    options.port = 0;
    options.tls = true;
    options.threads = 2;
    auto server = server::Server::Start(options);
    if (!server.ok()) return Fail("starting the server: " + server.status().ToString());
    server_ = std::move(*server);
    kubeconfig_ = server_->credentials().kubeconfig_file;
    log_.Now("server listening on " + server_->url() + " (TLS; in this process, data in " +
             folder_ + ")");
    log_.Note("the candidates connect through its kubeconfig, as kubectl would: " + kubeconfig_);
    auto cluster = Cluster::Connect({.kubeconfig = kubeconfig_, .in_cluster_if_available = false});
    if (!cluster.ok()) return Fail("connecting to the demo server: " + cluster.status().ToString());
    cluster_ = *cluster;
    client_ = ClusterAccess::SharedClient(*cluster_);
    api::Namespace demo_namespace;
    demo_namespace.metadata.name = kNamespace;
    json ns = api::ToJson(demo_namespace);
    auto created =
        client_->Call("POST", api::CollectionPath(api::NamespaceKind(), "v1", ""), &ns, 10s);
    if (!created.ok() && !created.status().IsAlreadyExists()) {
      return Fail("creating namespace demo: " + created.status().ToString());
    }
    // The candidates run this very binary, also when its file was replaced since it started.
    if (access("/proc/self/exe", X_OK) != 0)
      return Fail("cannot run this program (/proc/self/exe)");
    auto fleet = DemoFleet::Create(
        folder_, "/proc/self/exe",
        {"--kubeconfig", kubeconfig_, "--lease-duration", Seconds(kLeaseDuration),
         "--renew-deadline", Seconds(kRenewDeadline), "--retry-period", Seconds(kRetryPeriod)},
        [this](const CandidateEvent& e) { Show(e); });
    if (!fleet.ok()) return Fail(fleet.status().ToString());
    std::lock_guard lock(fleet_mu_);
    fleet_ = std::move(*fleet);
    if (interrupted_) fleet_->Interrupt();
    return !interrupted_;
  }

  static std::string Seconds(Steady::duration d) {
    return std::to_string(std::chrono::duration<double>(d).count());
  }

  // One line per candidate report, as it arrives.
  void Show(const CandidateEvent& e) {
    const Painter& p = log_.painter();
    std::string who = p.Paint(Padded(e.identity, 10), Color::kBold) + "  ";
    if (e.event == "ready") {
      log_.At(e.at, who + "campaigning");
    } else if (e.event == "registered") {
      auto versions = versions_.find(e.identity);
      log_.At(e.at, who + "registered its LeaseCandidate (" +
                        (versions == versions_.end() ? "?" : versions->second) + ")");
    } else if (e.event == "started") {
      log_.At(e.at, who + p.Paint("LEADS", Color::kGreen) + " (fencing token " +
                        std::to_string(e.token) + ")");
    } else if (e.event == "stopped") {
      log_.At(e.at, who + "stopped leading");
    } else if (e.event == "stopping") {
      log_.At(e.at, who + "got SIGTERM: stopping, releasing the lease if it holds it");
    } else if (e.event == "exit") {
      log_.At(e.at, who + "exited");
    } else if (e.event == "error") {
      log_.At(e.at, who + p.Paint("error: " + e.message, Color::kRed));
    }
  }

  bool Spawn(const std::string& identity, const std::string& lease,
             std::vector<std::string> extra = {}) {
    extra.insert(extra.begin(), {"--lock", std::string(kNamespace) + "/" + lease});
    Status s = fleet_->Spawn(identity, extra);
    if (!s.ok()) return Fail("starting candidate " + identity + ": " + s.ToString());
    ++spawned_;
    return true;
  }

  std::optional<CandidateEvent> WaitFor(const std::string& event, const std::string& not_identity,
                                        Steady::duration timeout, size_t* cursor) {
    return fleet_->WaitFor(
        [&](const CandidateEvent& e) {
          return (e.event == event || e.event == "error") && e.identity != not_identity;
        },
        timeout, cursor);
  }

  // Fails unless `got` is a real `event` (not a timeout or an error line).
  bool Expect(const std::optional<CandidateEvent>& got, const std::string& event,
              const std::string& what) {
    if (!got) return Fail("no " + what + " within " + api::HumanDuration(kElectTimeout));
    if (got->event != event) return Fail(got->identity + ": " + got->message);
    return true;
  }

  bool StartCandidates(Measurements& m) {
    log_.Section(std::string("Three candidate processes campaign for lease ") + kNamespace + "/" +
                 kLease);
    watches_.push_back(std::make_unique<LeaseWatch>(*client_, kLease, log_));
    size_t cursor = fleet_->EventCount();
    size_t ready_cursor = cursor;
    Steady::time_point spawned = Steady::now();
    for (const char* id : {"alpha", "beta", "gamma"}) {
      if (!Spawn(id, kLease)) return false;
    }
    auto leader = WaitFor("started", "", kElectTimeout, &cursor);
    if (!Expect(leader, "started", "leader")) return false;
    leader_ = leader->identity;
    m.first_election = leader->at - spawned;
    for (int ready = 0; ready < 3; ++ready) {
      auto e = fleet_->WaitFor([](const CandidateEvent& e) { return e.event == "ready"; },
                               kElectTimeout, &ready_cursor);
      if (!e) return Fail("the candidates did not all start");
    }
    log_.Note(leader_ + " renews the lease every " + Setting(kRetryPeriod) +
              "; the others watch it and wait.");
    std::this_thread::sleep_for(1500ms);  // let the audience see a stable leader
    return true;
  }

  // Sends `signal` to the leader and waits for another candidate's first term; returns the
  // time from the signal to that term (nullopt after printing why there was none).
  std::optional<Steady::duration> ReplaceLeader(int signal, const std::string& signal_text) {
    size_t cursor = fleet_->EventCount();
    std::string old = leader_;
    Steady::time_point signalled = Steady::now();
    fleet_->Signal(old, signal);
    log_.At(signalled, log_.painter().Paint(Padded(old, 10), Color::kBold) + "  " + signal_text);
    auto next = WaitFor("started", old, kElectTimeout, &cursor);
    if (!Expect(next, "started", "new leader after " + old)) return std::nullopt;
    leader_ = next->identity;
    return next->at - signalled;
  }

  bool Crash(Measurements& m) {
    log_.Section("Crash: kill -9 the leader");
    std::string victim = leader_;
    m.takeover = ReplaceLeader(SIGKILL, log_.painter().Paint("killed with SIGKILL", Color::kRed) +
                                            ": it cannot release the lease; the others take over "
                                            "once it expires");
    if (!m.takeover) return false;
    log_.Note(log_.painter().Paint("takeover: " + PreciseDuration(*m.takeover), Color::kBold) +
              " from the kill to " + leader_ + "'s first term (bounded by the lease duration, " +
              Setting(kLeaseDuration) + ", after " + victim + "'s last renewal)");
    fleet_->Reap();
    return true;
  }

  bool Handover(Measurements& m) {
    log_.Section("Graceful handover: stop the leader (it releases the lease as it stops)");
    size_t exit_cursor = fleet_->EventCount();
    std::string stopping = leader_;
    m.handover = ReplaceLeader(SIGTERM, "sent SIGTERM");
    if (!m.handover) return false;
    log_.Note(log_.painter().Paint("handover: " + PreciseDuration(*m.handover), Color::kBold) +
              " from SIGTERM to " + leader_ +
              "'s first term: no waiting for expiry, the followers " +
              "watch the lease and take it the moment it is released");
    fleet_->WaitFor(
        [&](const CandidateEvent& e) { return e.event == "exit" && e.identity == stopping; }, 5s,
        &exit_cursor);
    return true;
  }

  // Waits for `identity`'s next term; its report, or nullopt after printing why not.
  std::optional<CandidateEvent> WaitLeader(const std::string& identity, size_t* cursor,
                                           const std::string& what) {
    auto e = fleet_->WaitFor(
        [&](const CandidateEvent& e) {
          return e.identity == identity && (e.event == "started" || e.event == "error");
        },
        kElectTimeout, cursor);
    if (!Expect(e, "started", what)) return std::nullopt;
    return e;
  }

  // Coordinated leader election: LeaseCandidates with versions; the controller picks the holder
  // (OldestEmulationVersion: the lowest emulation version, then binary version) and writes it
  // into the Lease; candidates only renew a lease assigned to them.
  bool Coordinated(Measurements& m) {
    log_.Section("Coordinated election: two versions, the server's controller picks the leader");
    // The plain-election candidates are done: keep the output of this round readable.
    fleet_->StopAll(5s);
    // The controller, as `tenure serve` runs it (leader-elected on kube-system/
    // leader-election-controller); its decisions appear as "controller" lines.
    coordination::ControllerOptions options;
    options.log = [this](const std::string& line) {
      log_.Now(log_.painter().Paint("controller", Color::kCyan) + "  " + line);
    };
    auto controller = coordination::Controller::Start(cluster_, options);
    if (!controller.ok()) {
      m.coordinated_skipped =
          "the election controller did not start: " + controller.status().message();
      log_.Now(log_.painter().Paint("skipped: " + m.coordinated_skipped, Color::kYellow));
      return true;
    }
    controller_ = std::move(*controller);
    log_.Note(
        "Candidates register a LeaseCandidate with their versions; the controller assigns lease");
    log_.Note(std::string(kNamespace) + "/" + kCoordinatedLease +
              " to the oldest emulation version, so that during an upgrade or a rollback a");
    log_.Note("component never runs under a leader newer than itself.");
    watches_.push_back(std::make_unique<LeaseWatch>(*client_, kCoordinatedLease, log_));
    auto spawn = [&](const std::string& id, const std::string& version) {
      return Spawn(id, kCoordinatedLease,
                   {"--coordinated", "--binary-version", version, "--emulation-version", version});
    };

    size_t cursor = fleet_->EventCount();
    Steady::time_point spawned = Steady::now();
    if (!spawn("v1.33", "1.33.0")) return false;
    auto first = WaitLeader("v1.33", &cursor, "coordinated leader");
    if (!first) return false;
    m.coordinated_election = first->at - spawned;
    log_.Note(log_.painter().Paint("elected v1.33", Color::kBold) + ", the only candidate, " +
              PreciseDuration(*m.coordinated_election) + " after it started");

    log_.Now("an older replica joins (a rollback, or an upgrade still in progress): v1.32");
    cursor = fleet_->EventCount();
    spawned = Steady::now();
    if (!spawn("v1.32", "1.32.0")) return false;
    auto preempted = WaitLeader("v1.32", &cursor, "preemption by the older version");
    if (!preempted) return false;
    m.coordinated_preemption = preempted->at - spawned;
    log_.Note(log_.painter().Paint("v1.32 took over", Color::kBold) + " " +
              PreciseDuration(*m.coordinated_preemption) +
              " after it started: the controller set " +
              "preferredHolder, v1.33 released at once (no waiting for the lease to expire)");

    log_.Now("v1.32 goes away (upgraded): it withdraws its LeaseCandidate and releases the lease");
    cursor = fleet_->EventCount();
    Steady::time_point signalled = Steady::now();
    fleet_->Signal("v1.32", SIGTERM);
    auto back = WaitLeader("v1.33", &cursor, "coordinated leader after v1.32 left");
    if (!back) return false;
    m.coordinated_handover = back->at - signalled;
    log_.Note(log_.painter().Paint("elected v1.33", Color::kBold) + " again " +
              PreciseDuration(*m.coordinated_handover) + " after v1.32 was stopped");
    return true;
  }

  DemoLog& log_;
  std::string folder_;
  std::mutex fleet_mu_;  // fleet_ is set and reset while the signal thread may Interrupt
  std::atomic<bool> interrupted_{false};
  std::unique_ptr<server::Server> server_;
  std::string kubeconfig_;
  std::shared_ptr<Cluster> cluster_;
  std::shared_ptr<client::KubeClient> client_;
  std::unique_ptr<DemoFleet> fleet_;
  std::unique_ptr<coordination::Controller> controller_;
  std::vector<std::unique_ptr<LeaseWatch>> watches_;
  // What the coordinated round's candidates register (read by the reader thread: fixed here).
  const std::map<std::string, std::string> versions_ = {
      {"v1.33", "binary 1.33.0, emulation 1.33.0"}, {"v1.32", "binary 1.32.0, emulation 1.32.0"}};
  std::string leader_;
  size_t spawned_ = 0;
};

void PrintSummary(DemoLog& log, const Measurements& m) {
  log.Section("Summary (measured)");
  auto row = [&](const std::string& what, const std::optional<Steady::duration>& d,
                 const std::string& why) {
    if (!d) return;
    log.Line("  " + Padded(what, 28) + Padded(PreciseDuration(*d), 9) + why);
  };
  row("first leader elected", m.first_election, "from starting three processes");
  row("takeover after kill -9", m.takeover,
      "bound: lease duration (" + Setting(kLeaseDuration) + " here, 15s by default)");
  row("graceful handover", m.handover, "release on cancel + watching followers");
  row("coordinated election", m.coordinated_election, "a lone candidate starts -> it leads");
  row("coordinated preemption", m.coordinated_preemption, "an older version starts -> it leads");
  row("coordinated handover", m.coordinated_handover, "the leader stops -> the other leads");
  if (!m.coordinated_skipped.empty())
    log.Line("  coordinated election        skipped: " + m.coordinated_skipped);
}

int RunDemo(const DemoFlags& flags) {
  // The demo tells its own story; the library's info lines would repeat it (-v shows them).
  if (GetLogLevel() == LogLevel::kInfo) SetLogLevel(LogLevel::kWarning);
  sigset_t signals = BlockStopSignals();

  DemoLog log(Painter::ForStdout());
  log.Line(log.painter().Paint("tenure demo", Color::kBold) +
           ": leader election, live, with a real server and candidate processes.");
  log.Line("Demo timings: lease duration " + Setting(kLeaseDuration) + ", renew deadline " +
           Setting(kRenewDeadline) + ", retry period " + Setting(kRetryPeriod) +
           ", shorter than the defaults");
  log.Line("(15s, 10s, 2s) so that the demo finishes within a minute.");

  std::string folder = (std::filesystem::temp_directory_path() / "tenure-demo-XXXXXX").string();
  if (mkdtemp(folder.data()) == nullptr) {
    std::cerr << "tenure demo: cannot create a temporary folder: " << std::strerror(errno) << "\n";
    return 1;
  }
  Demo demo(log, folder);
  std::atomic<bool> done{false};
  std::atomic<bool> interrupted{false};
  std::jthread signal_watch([&] {
    while (!done) {
      timespec poll{0, 100'000'000};
      int signal = sigtimedwait(&signals, nullptr, &poll);
      if (signal == SIGINT || signal == SIGTERM) {
        interrupted = true;
        demo.Interrupt();
        return;
      }
    }
  });
  Measurements m;
  bool ok = demo.Run(m);
  done = true;
  signal_watch.join();
  if (interrupted) log.Line("\ninterrupted");
  log.Section("Cleaning up");
  std::string cleaned = demo.CleanUp();
  if (ok && !interrupted) PrintSummary(log, m);
  std::error_code ec;
  if (!flags.keep) std::filesystem::remove_all(folder, ec);
  log.Line("\nCleaned up: " + cleaned + ", " +
           (flags.keep ? folder + " kept"
            : ec       ? "could not remove " + folder + ": " + ec.message()
                       : folder + " removed") +
           ".");
  if (interrupted) return 130;
  return ok ? 0 : 1;
}

}  // namespace

void AddDemoCommand(CLI::App& app) {
  auto flags = std::make_shared<DemoFlags>();
  CLI::App* demo = app.add_subcommand(
      "demo",
      "Watch leader election live: crash takeover, graceful handover, coordinated election");
  demo->add_flag("--keep", flags->keep, "Keep the temporary folder (server data, kubeconfig)");
  demo->footer(
      "Starts a server in a temporary folder and candidate processes, kills the leader with\n"
      "SIGKILL, stops the next one gracefully, runs a coordinated election with two versions,\n"
      "prints the measured times and cleans up (about 30 s; Ctrl-C stops early and cleans up).\n"
      "Example:\n"
      "  tenure demo");
  demo->callback([flags] { std::exit(RunDemo(*flags)); });
}

}  // namespace tenure::cli
