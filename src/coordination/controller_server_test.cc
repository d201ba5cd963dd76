// The controller against an in-process tenure server over HTTPS, as `tenure serve` runs it. The
// test plays the candidates: it writes LeaseCandidate objects and acknowledges pings through a
// watch (or leaves them unanswered to play a dead candidate); holders are real libtenure
// electors in coordinated mode. Controller timings are shortened (ack window 1 s, lease 2 s) so
// that expiry cases take seconds; every wait is for a condition, with a deadline.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "api/time.h"
#include "client/informer.h"
#include "client/kube_client.h"
#include "coordination/controller.h"
#include "election/cluster_access.h"
#include "tenure/elector.h"
#include "tenure/fake_clock.h"
#include "tenure/kube_locks.h"
#include "tenure/testing/waits.h"
#include "testing/in_process_server.h"

namespace tenure::coordination {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::Eventually;

constexpr const char* kCandidates =
    "/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates";
constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

std::string Now(std::chrono::nanoseconds offset = 0ns) {
  return api::FormatMicroTime(std::chrono::system_clock::now() +
                              std::chrono::duration_cast<std::chrono::microseconds>(offset));
}

// A LeaseCandidate for Lease "lease" at `version` ("v1beta1" or "v1alpha2").
json CandidateObject(const std::string& version, const std::string& name, const std::string& binary,
                     const std::string& emulation,
                     const std::string& strategy = "OldestEmulationVersion",
                     std::chrono::nanoseconds renewed_ago = 0ns) {
  return {{"apiVersion", "coordination.k8s.io/" + version},
          {"kind", "LeaseCandidate"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"leaseName", "lease"},
            {"binaryVersion", binary},
            {"emulationVersion", emulation},
            {"strategy", strategy},
            {"renewTime", Now(-renewed_ago)}}}};
}

// Acknowledges the pings of the candidates marked responsive, from a watch of all candidates.
class Acker {
 public:
  // `now` gives the renewTime an ack writes.
  explicit Acker(
      client::KubeClient& client, std::function<std::string()> now = [] { return Now(); })
      : client_(client), now_(std::move(now)) {
    informer_ = std::make_unique<client::Informer>(
        client, kCandidates, [this](const std::string& type, const json& c) {
          if (type == "DELETED" || type == "SYNCED") return;
          auto ping = api::ParseTime(c.value("/spec/pingTime"_json_pointer, std::string()));
          auto renew = api::ParseTime(c.value("/spec/renewTime"_json_pointer, std::string()));
          if (!ping || (renew && *renew >= *ping)) return;
          std::lock_guard lock(mu_);
          todo_.insert(c["metadata"]["name"].get<std::string>());
          cv_.notify_all();
        });
    thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
  }
  ~Acker() {
    thread_.request_stop();
    cv_.notify_all();
  }
  void SetResponsive(const std::string& name, bool responsive) {
    std::lock_guard lock(mu_);
    if (responsive) {
      silent_.erase(name);
    } else {
      silent_.insert(name);
    }
  }
  int acks() const { return acks_.load(); }

 private:
  void Loop(std::stop_token stop) {
    std::unique_lock lock(mu_);
    while (!stop.stop_requested()) {
      cv_.wait(lock, stop, [&] { return !todo_.empty(); });
      std::set<std::string> names;
      names.swap(todo_);
      for (const std::string& name : names) {
        if (silent_.count(name)) continue;
        lock.unlock();
        Ack(name);
        lock.lock();
      }
    }
  }
  void Ack(const std::string& name) {
    for (int attempt = 0; attempt < 5; ++attempt) {
      auto c = client_.Call("GET", std::string(kCandidates) + "/" + name, nullptr, 5s);
      if (!c.ok()) return;
      (*c)["spec"]["renewTime"] = now_();
      auto put = client_.Call("PUT", std::string(kCandidates) + "/" + name, &*c, 5s);
      if (put.ok()) {
        ++acks_;
        return;
      }
      if (!put.status().IsConflict()) return;
    }
  }

  client::KubeClient& client_;
  std::function<std::string()> now_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::set<std::string> todo_, silent_;
  std::atomic<int> acks_{0};
  std::unique_ptr<client::Informer> informer_;
  std::jthread thread_;
};

class ControllerServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::InProcessServer::Start();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    cluster_ = server_->cluster();
  }
  void TearDown() override {
    holders_.clear();
    acker_.reset();
    if (controller_) controller_->Stop();
    server_.reset();
  }

  ControllerOptions Options() {
    ControllerOptions o;
    o.timings.election_duration = 1s;
    o.timings.lease_duration = 2s;
    o.timings.requeue_interval = 1s;
    o.log = [this](const std::string& line) {
      std::lock_guard lock(log_mu_);
      log_.push_back(line);
      std::cerr << "coordination: " << line << "\n";
    };
    return o;
  }

  void StartController() { StartController(Options()); }
  void StartController(const ControllerOptions& options) {
    auto controller = Controller::Start(cluster_, options);
    ASSERT_TRUE(controller.ok()) << controller.status().ToString();
    controller_ = std::move(*controller);
    acker_ = std::make_unique<Acker>(client());
  }

  client::KubeClient& client() { return KubeClientOf(*cluster_); }

  void AddCandidate(const std::string& name, const std::string& binary,
                    const std::string& emulation,
                    const std::string& strategy = "OldestEmulationVersion",
                    std::chrono::nanoseconds renewed_ago = 0ns) {
    json c = CandidateObject("v1beta1", name, binary, emulation, strategy, renewed_ago);
    auto created = client().Call("POST", kCandidates, &c, 5s);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  std::optional<json> Lease(const std::string& name = "lease", const std::string& path = kLeases) {
    auto lease = client().Call("GET", path + std::string("/") + name, nullptr, 5s);
    if (!lease.ok()) return std::nullopt;
    return *lease;
  }
  std::string Field(const std::string& pointer) {
    auto lease = Lease();
    if (!lease) return "<none>";
    return lease->value(json::json_pointer(pointer), std::string());
  }

  // Lease default/lease as another writer left it.
  void PutLease(const std::string& holder, const std::string& preferred, int duration_seconds,
                std::chrono::nanoseconds renewed_ago) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", "lease"}}},
                  {"spec",
                   {{"holderIdentity", holder},
                    {"preferredHolder", preferred},
                    {"strategy", "OldestEmulationVersion"},
                    {"leaseDurationSeconds", duration_seconds},
                    {"renewTime", Now(-renewed_ago)}}}};
    ASSERT_TRUE(client().Call("POST", kLeases, &lease, 5s).ok());
  }

  // Messages of the Events with `reason` about Lease default/lease.
  std::vector<std::string> Events(const std::string& reason) {
    std::vector<std::string> out;
    auto list = client().Call("GET", "/api/v1/namespaces/default/events", nullptr, 5s);
    if (!list.ok()) return out;
    for (const json& e : (*list)["items"]) {
      if (e["involvedObject"]["name"] == "lease" && e["involvedObject"]["kind"] == "Lease" &&
          e["reason"] == reason) {
        out.push_back(e["message"]);
      }
    }
    return out;
  }
  bool HasEvent(const std::string& reason, const std::string& message) {
    for (const std::string& m : Events(reason)) {
      if (m == message) return true;
    }
    return false;
  }

  // A component instance: a coordinated elector that renews the lease once it is assigned.
  Elector& RunHolder(const std::string& id, bool release_on_cancel = true) {
    ElectionConfig config;
    config.lock = NewLeaseLock(cluster_, {"default", "lease", id, false});
    config.coordinated = true;
    config.lease_duration = 2s;
    config.renew_deadline = 1s;
    config.retry_period = 200ms;
    config.release_on_cancel = release_on_cancel;
    config.recontend_after = 100ms;  // a component stays a candidate after its term
    config.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
    config.callbacks.on_stopped_leading = [] {};
    auto elector = Elector::Create(std::move(config));
    EXPECT_TRUE(elector.ok()) << elector.status().ToString();
    std::shared_ptr<Elector> shared = std::move(*elector);
    holders_[id] = std::make_unique<ElectionHandle>(shared);
    return holders_[id]->elector();
  }

  std::unique_ptr<testing::InProcessServer> server_;
  std::shared_ptr<Cluster> cluster_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<Acker> acker_;
  std::map<std::string, std::unique_ptr<ElectionHandle>> holders_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

TEST_F(ControllerServerTest, RollingUpgradeElectsOldestEmulationVersionAndPreemptsOnRelease) {
  StartController();
  EXPECT_EQ(controller_->candidate_version(), "v1beta1");
  Elector& old_elector = RunHolder("old");
  Elector& mixed_elector = RunHolder("mixed");
  RunHolder("new");
  AddCandidate("old", "1.33.0", "1.33.0");
  AddCandidate("mixed", "1.34.0", "1.33.0");
  AddCandidate("new", "1.34.0", "1.34.0");
  ASSERT_TRUE(Eventually([&] { return old_elector.IsLeader(); })) << Field("/spec/holderIdentity");
  EXPECT_EQ(Field("/spec/holderIdentity"), "old");
  EXPECT_EQ(Field("/spec/strategy"), "OldestEmulationVersion");
  EXPECT_EQ(Lease()->value("/spec/leaseDurationSeconds"_json_pointer, 0), 2);
  ASSERT_TRUE(Eventually([&] {
    return HasEvent("LeaderElected",
                    "old elected: OldestEmulationVersion, emulation 1.33.0, binary 1.33.0");
  }));

  // A candidate with a lower emulation version joins: preferredHolder, then the holder
  // releases and the controller assigns the winner without waiting for the lease to expire.
  Elector& older_elector = RunHolder("older");
  AddCandidate("older", "1.33.0", "1.32.0");
  ASSERT_TRUE(Eventually([&] { return older_elector.IsLeader(); }))
      << Field("/spec/holderIdentity");
  EXPECT_FALSE(old_elector.IsLeader());
  EXPECT_FALSE(mixed_elector.IsLeader());
  EXPECT_EQ(Field("/spec/preferredHolder"), "");
  ASSERT_TRUE(Eventually([&] {
    return HasEvent("Preempting", "preferredHolder older replaces old: emulation 1.32.0 < 1.33.0");
  }));
  EXPECT_TRUE(Eventually([&] {  // Events are posted in the background
    return HasEvent("LeaderElected",
                    "older elected: OldestEmulationVersion, emulation 1.32.0, binary 1.33.0");
  }));
  // The release (holder "") reached the controller, not an expiry: see the log.
  std::lock_guard lock(log_mu_);
  bool released = false;
  for (const std::string& line : log_) {
    released |= line.find("older elected") != std::string::npos &&
                line.find("(lease released)") != std::string::npos;
  }
  EXPECT_TRUE(released);
  const ControllerMetrics& m = controller_->metrics();
  EXPECT_GE(m.elections.load(), 2u);
  EXPECT_GE(m.preemptions.load(), 1u);
  EXPECT_EQ(m.candidates.load(), 4);
  std::string text = m.Render();
  EXPECT_NE(text.find("tenure_coordination_leading 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE tenure_coordination_elections_total counter"), std::string::npos);
}

TEST_F(ControllerServerTest, ADeadLeaderIsReplacedWhenItsLeaseExpires) {
  StartController();
  Elector& a = RunHolder("a", /*release_on_cancel=*/false);
  Elector& b = RunHolder("b");
  AddCandidate("a", "1.33.0", "1.33.0");
  AddCandidate("b", "1.34.0", "1.33.0");
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }));
  // "a" dies: it neither renews the lease nor answers pings.
  acker_->SetResponsive("a", false);
  holders_.erase("a");
  ASSERT_TRUE(Eventually([&] { return b.IsLeader(); })) << Field("/spec/holderIdentity");
  EXPECT_EQ(Field("/spec/holderIdentity"), "b");
  bool expired = false;
  std::lock_guard lock(log_mu_);
  for (const std::string& line : log_) {
    expired |= line.find("b elected") != std::string::npos &&
               line.find("(lease of a expired)") != std::string::npos;
  }
  EXPECT_TRUE(expired);
}

TEST_F(ControllerServerTest, ExpiryIsNoticedOnTheInjectedClockWithKubernetesTimings) {
  // Kubernetes' timings (5 s) on a FakeClock: no real waiting, and no event announces the
  // expiry; the controller's own requeue at the lease's expiry does.
  auto clock = std::make_shared<FakeClock>();
  auto fake_now = [clock] { return api::FormatMicroTime(clock->wall_now()); };
  json a = CandidateObject("v1beta1", "a", "1.33.0", "1.33.0");
  a["spec"]["renewTime"] = fake_now();
  ASSERT_TRUE(client().Call("POST", kCandidates, &a, 5s).ok());
  ControllerOptions options;
  options.clock = clock;
  options.log = [](const std::string&) {};
  auto controller = Controller::Start(cluster_, options);
  ASSERT_TRUE(controller.ok()) << controller.status().ToString();
  controller_ = std::move(*controller);
  acker_ = std::make_unique<Acker>(client(), fake_now);
  const std::string created = fake_now();
  ASSERT_TRUE(Eventually(
      [&] { return Field("/spec/holderIdentity") == "a" && Field("/spec/renewTime") == created; }));
  EXPECT_EQ(Lease()->value("/spec/leaseDurationSeconds"_json_pointer, 0), 5);
  // The controller has also seen its own write come back (the lease's ADDED event): from now
  // on no event is due.
  ASSERT_TRUE(Eventually([&] { return controller_->metrics().reconciles.load() >= 2; }));
  // Nobody renews the lease. 6 s later it has expired: "a" is pinged, answers, and gets a
  // fresh lease at the fake time.
  clock->Advance(6s);
  const std::string later = fake_now();
  ASSERT_TRUE(Eventually([&] { return Field("/spec/renewTime") == later; }))
      << Field("/spec/renewTime") << " != " << later;
  EXPECT_EQ(Field("/spec/holderIdentity"), "a");
  EXPECT_GE(acker_->acks(), 1);
  EXPECT_GE(controller_->metrics().pings.load(), 1u);
}

TEST_F(ControllerServerTest, AStrategyConflictLeavesTheLeaseAloneAndSaysSo) {
  AddCandidate("x", "1.34.0", "1.34.0");
  AddCandidate("y", "1.34.0", "1.33.0", "example.com/mine");
  StartController();
  std::string message =
      "candidates of binary version 1.34.0 disagree: x (OldestEmulationVersion) vs y "
      "(example.com/mine); lease left alone";
  // The Event goes to a Lease that does not exist yet: involvedObject names it.
  ASSERT_TRUE(Eventually([&] { return HasEvent("StrategyConflict", message); }));
  EXPECT_FALSE(Lease());
  // Every change of a candidate reconciles again; the conflict is not reported again.
  uint64_t reconciles = controller_->metrics().reconciles.load();
  for (int i = 0; i < 3; ++i) {
    auto x = client().Call("GET", std::string(kCandidates) + "/x", nullptr, 5s);
    ASSERT_TRUE(x.ok());
    (*x)["spec"]["renewTime"] = Now();
    ASSERT_TRUE(client().Call("PUT", std::string(kCandidates) + "/x", &*x, 5s).ok());
    ASSERT_TRUE(Eventually([&] { return controller_->metrics().reconciles.load() > reconciles; }));
    reconciles = controller_->metrics().reconciles.load();
  }
  EXPECT_EQ(controller_->metrics().strategy_conflicts.load(), 1u);
  EXPECT_EQ(Events("StrategyConflict").size(), 1u);
  EXPECT_FALSE(Lease());
}

TEST_F(ControllerServerTest, AStalePreferredHolderIsCleared) {
  StartController();
  Elector& a = RunHolder("a");
  AddCandidate("a", "1.33.0", "1.33.0");
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }));
  // Someone (an earlier election) left preferredHolder pointing at a candidate that is gone.
  // The holder ends its term and releases; the controller clears the stale preferredHolder and
  // gives the lease back to the best candidate instead of stalling.
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto lease = Lease();
    ASSERT_TRUE(lease);
    (*lease)["spec"]["preferredHolder"] = "ghost";
    if (client().Call("PUT", std::string(kLeases) + "/lease", &*lease, 5s).ok()) break;
  }
  ASSERT_TRUE(Eventually([&] {
    return Field("/spec/preferredHolder").empty() && Field("/spec/holderIdentity") == "a" &&
           a.IsLeader();
  }));
}

TEST_F(ControllerServerTest, AnExpiredLeaseWithAStalePreferredHolderDoesNotStall) {
  // An upstream-style holder stopped renewing because preferredHolder was set, and that
  // candidate is gone. The reference leaves the expired lease to "a" and never writes again
  // (a client-go holder does not renew an expired lease): the election stalls. Here "a" gets a
  // fresh lease without the stale preferredHolder, once the lease has expired as the controller
  // counts it (2 s after it first saw it; the old renewTime does not decide).
  PutLease("a", "ghost", 2, 10s);
  AddCandidate("a", "1.33.0", "1.33.0");
  StartController();
  ASSERT_TRUE(Eventually([&] {
    auto renewed = api::ParseTime(Field("/spec/renewTime"));
    return Field("/spec/preferredHolder").empty() && renewed &&
           *renewed > std::chrono::system_clock::now() - 5s;
  }));
  EXPECT_EQ(Field("/spec/holderIdentity"), "a");
}

TEST_F(ControllerServerTest, AStalePreferredHolderOfAValidLeaseIsClearedWithAnEvent) {
  // preferredHolder names a vanished candidate (e.g. another controller's leftover) while the
  // best candidate validly holds the lease: cleared, and an Event says why.
  PutLease("a", "ghost", 30, 0s);
  AddCandidate("a", "1.33.0", "1.33.0");
  StartController();
  ASSERT_TRUE(Eventually([&] { return Field("/spec/preferredHolder").empty(); }));
  EXPECT_EQ(Field("/spec/holderIdentity"), "a");
  ASSERT_TRUE(Eventually([&] {
    return HasEvent("PreferredHolderCleared",
                    "preferredHolder ghost cleared: its candidate is gone, expired or not "
                    "answering pings; a keeps the lease");
  }));
  EXPECT_EQ(controller_->metrics().preferred_holder_cleared.load(), 1u);
}

// The controller keeps only the Leases that candidates run for: the events of "lease" are turned
// away until its first candidate appears, and it is read then. Otherwise the controller would
// take it for absent (and try to create it) until its holder wrote it again.
TEST_F(ControllerServerTest, ALeaseIsReadWhenItGetsItsFirstCandidate) {
  // A managed lease first, so that the controller's watches are known to run.
  json w = CandidateObject("v1beta1", "w", "1.33.0", "1.33.0");
  w["spec"]["leaseName"] = "warmup";
  ASSERT_TRUE(client().Call("POST", kCandidates, &w, 5s).ok());
  StartController();
  ASSERT_TRUE(Eventually([&] { return Lease("warmup").has_value(); }));

  PutLease("a", "ghost", 3600, 0s);
  json unmanaged = {{"apiVersion", "coordination.k8s.io/v1"},
                    {"kind", "Lease"},
                    {"metadata", {{"name", "unmanaged"}}},
                    {"spec", {{"holderIdentity", "someone"}}}};
  ASSERT_TRUE(client().Call("POST", kLeases, &unmanaged, 5s).ok());
  // A change of the managed lease, written after both: once the controller has reconciled for
  // it, the events of "lease" and "unmanaged" have come through the same stream before it.
  const uint64_t reconciles = controller_->metrics().reconciles.load();
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto warmup = Lease("warmup");
    ASSERT_TRUE(warmup);
    (*warmup)["metadata"]["labels"]["touched"] = "yes";
    if (client().Call("PUT", std::string(kLeases) + "/warmup", &*warmup, 5s).ok()) break;
  }
  ASSERT_TRUE(Eventually([&] { return controller_->metrics().reconciles.load() > reconciles; }));

  AddCandidate("a", "1.33.0", "1.33.0");
  ASSERT_TRUE(Eventually([&] {
    return HasEvent("PreferredHolderCleared",
                    "preferredHolder ghost cleared: its candidate is gone, expired or not "
                    "answering pings; a keeps the lease");
  }));
  EXPECT_EQ(Field("/spec/preferredHolder"), "");
  EXPECT_EQ(Field("/spec/holderIdentity"), "a");
  EXPECT_EQ(controller_->metrics().errors.load(), 0u);
  // The unmanaged Lease is not in the controller's copy.
  ASSERT_TRUE(Eventually([&] { return controller_->metrics().leases.load() == 2; }))
      << controller_->metrics().leases.load();
}

// Found by review: a lease whose candidates had all expired lost its copy, although their
// objects still made the filter take its events; when a candidate renewed, the lease looked
// absent to the controller.
TEST_F(ControllerServerTest, ALeaseWhoseCandidatesExpiredKeepsItsCopy) {
  PutLease("a", "", 3600, 0s);
  AddCandidate("a", "1.33.0", "1.33.0");
  StartController();
  ASSERT_TRUE(Eventually([&] { return controller_->metrics().reconciles.load() >= 1; }));
  EXPECT_EQ(controller_->metrics().leases.load(), 1);
  // Candidate "a" stops counting: not renewed for longer than the candidate expiry.
  uint64_t reconciles = controller_->metrics().reconciles.load();
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto a = client().Call("GET", std::string(kCandidates) + "/a", nullptr, 5s);
    ASSERT_TRUE(a.ok());
    (*a)["spec"]["renewTime"] = Now(-31min);
    if (client().Call("PUT", std::string(kCandidates) + "/a", &*a, 5s).ok()) break;
  }
  ASSERT_TRUE(Eventually([&] { return controller_->metrics().reconciles.load() > reconciles; }));
  EXPECT_EQ(controller_->metrics().leases.load(), 1);
  EXPECT_EQ(Field("/spec/holderIdentity"), "a");
  EXPECT_EQ(controller_->metrics().errors.load(), 0u);
}

// A candidate's deletion reconciles its lease at once, not at the next requeue (an hour away
// here) or the next write of the lease: the preferredHolder naming it is cleared.
TEST_F(ControllerServerTest, DeletingACandidateReconcilesItsLease) {
  PutLease("a", "b", 3600, 0s);
  AddCandidate("a", "1.33.0", "1.33.0");
  AddCandidate("b", "1.33.0", "1.32.0");
  ControllerOptions options = Options();
  options.timings.requeue_interval = 1h;
  StartController(options);
  ASSERT_TRUE(Eventually([&] { return controller_->metrics().reconciles.load() >= 1; }));
  EXPECT_EQ(Field("/spec/preferredHolder"), "b");
  ASSERT_TRUE(client().Call("DELETE", std::string(kCandidates) + "/b", nullptr, 5s).ok());
  ASSERT_TRUE(Eventually([&] { return Field("/spec/preferredHolder").empty(); }))
      << Field("/spec/preferredHolder");
  EXPECT_EQ(Field("/spec/holderIdentity"), "a");
}

TEST_F(ControllerServerTest, AThirdPartyStrategyOnlyGetsItsStrategySet) {
  StartController();
  AddCandidate("p", "1.34.0", "1.34.0", "example.com/mine");
  AddCandidate("q", "1.33.0", "1.33.0");
  ASSERT_TRUE(Eventually([&] { return Field("/spec/strategy") == "example.com/mine"; }));
  EXPECT_EQ(Field("/spec/holderIdentity"), "");
}

TEST_F(ControllerServerTest, ExpiredCandidatesAreCollected) {
  AddCandidate("stale", "1.33.0", "1.33.0", "OldestEmulationVersion", 31min);
  AddCandidate("fresh", "1.33.0", "1.33.0");
  StartController();  // collects at once, then every 30 min
  ASSERT_TRUE(Eventually([&] {
    return client()
        .Call("GET", std::string(kCandidates) + "/stale", nullptr, 5s)
        .status()
        .IsNotFound();
  }));
  EXPECT_TRUE(client().Call("GET", std::string(kCandidates) + "/fresh", nullptr, 5s).ok());
  EXPECT_TRUE(Eventually([&] { return controller_->metrics().candidates_collected.load() == 1; }));
}

TEST_F(ControllerServerTest, TheControllerIsLeaderElectedAndReleasesOnStop) {
  StartController();
  const std::string path = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  ASSERT_TRUE(Eventually([&] { return controller_->IsLeading(); }));
  auto lease = Lease("leader-election-controller", path);
  ASSERT_TRUE(lease);
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], controller_->identity());
  EXPECT_NE(controller_->identity().find('_'), std::string::npos);
  // A second replica stays a follower.
  auto second = Controller::Start(cluster_, Options());
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE((*second)->IsLeading());
  controller_->Stop();
  EXPECT_FALSE(controller_->IsLeading());
  lease = Lease("leader-election-controller", path);
  ASSERT_TRUE(lease);
  EXPECT_NE((*lease)["spec"]["holderIdentity"], controller_->identity());
  // The released lease (1 s) goes to the other replica, which then runs the controller.
  EXPECT_TRUE(Eventually([&] { return (*second)->IsLeading(); }));
  (*second)->Stop();
}

TEST_F(ControllerServerTest, LeasesOfEveryNamespaceAreManagedApart) {
  StartController();
  // Same candidate and lease names in two namespaces: distinct objects, distinct elections.
  json c = CandidateObject("v1beta1", "old", "1.30.0", "1.30.0");
  ASSERT_TRUE(client()
                  .Call("POST",
                        "/apis/coordination.k8s.io/v1beta1/namespaces/kube-system/leasecandidates",
                        &c, 5s)
                  .ok());
  AddCandidate("old", "1.33.0", "1.33.0");
  AddCandidate("new", "1.34.0", "1.34.0");
  const std::string system = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  ASSERT_TRUE(Eventually([&] { return Field("/spec/holderIdentity") == "old"; }));
  ASSERT_TRUE(Eventually([&] { return Lease("lease", system).has_value(); }));
  EXPECT_EQ((*Lease("lease", system))["spec"]["holderIdentity"], "old");
  // Deleting the default one's holder candidate does not touch the kube-system election.
  ASSERT_TRUE(client().Call("DELETE", std::string(kCandidates) + "/old", nullptr, 5s).ok());
  // While old's lease is valid it is asked to hand over (preferredHolder); once it has expired
  // (nobody renews it here) "new" is assigned directly.
  ASSERT_TRUE(Eventually([&] {
    return Field("/spec/preferredHolder") == "new" || Field("/spec/holderIdentity") == "new";
  })) << Field("/spec/preferredHolder");
  EXPECT_EQ((*Lease("lease", system))["spec"].value("preferredHolder", ""), "");
  EXPECT_EQ(controller_->metrics().candidates.load(), 2);
}

TEST(ControllerVersionTest, UsesV1alpha2WhenV1beta1IsNotServed) {
  server::ServerOptions options;
  ASSERT_TRUE(server::ApplyRuntimeConfig("coordination.k8s.io/v1beta1=false", options).ok());
  auto started = testing::InProcessServer::Start(options);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  testing::InProcessServer& server = **started;
  ControllerOptions controller_options;
  controller_options.log = [](const std::string&) {};
  auto controller = Controller::Start(server.cluster(), controller_options);
  ASSERT_TRUE(controller.ok()) << controller.status().ToString();
  EXPECT_EQ((*controller)->candidate_version(), "v1alpha2");
  json c = CandidateObject("v1alpha2", "a", "1.33.0", "1.33.0");
  ASSERT_TRUE(KubeClientOf(*server.cluster())
                  .Call("POST",
                        "/apis/coordination.k8s.io/v1alpha2/namespaces/default/leasecandidates", &c,
                        5s)
                  .ok());
  EXPECT_TRUE(Eventually([&] {
    auto lease =
        KubeClientOf(*server.cluster()).Call("GET", std::string(kLeases) + "/lease", nullptr, 5s);
    return lease.ok() && (*lease)["spec"].value("holderIdentity", "") == "a";
  }));
  (*controller)->Stop();
}

TEST(ControllerGateTest, WithTheGateOffThereIsNoApiAndNoController) {
  server::ServerOptions options;
  options.coordinated_leader_election = false;
  auto started = testing::InProcessServer::Start(options);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  testing::InProcessServer& server = **started;
  auto controller = Controller::Start(server.cluster(), {});
  EXPECT_FALSE(controller.ok());
  EXPECT_TRUE(controller.status().IsNotFound()) << controller.status().ToString();
  EXPECT_TRUE(
      KubeClientOf(*server.cluster()).Call("GET", kCandidates, nullptr, 5s).status().IsNotFound());
}

}  // namespace
}  // namespace tenure::coordination
