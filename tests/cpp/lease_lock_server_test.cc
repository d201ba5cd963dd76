// The library against a real tenure server (in-process, HTTPS, its own kubeconfig): Lease lock
// semantics, watch-driven handover, shared connections and watches, events.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "api/time.h"
#include "client/kube_client.h"
#include "election/cluster_access.h"
#include "tenure/elector.h"
#include "tenure/kube_locks.h"
#include "tenure/testing/waits.h"
#include "testing/in_process_server.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;

class LibraryServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::InProcessServer::Start();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  std::shared_ptr<Cluster> Connect() {
    auto cluster = server_->Connect();
    EXPECT_TRUE(cluster.ok()) << cluster.status().ToString();
    return *cluster;
  }

  // The holders a lock's watch reported, in order.
  struct ReportedHolders {
    std::mutex mu;
    std::vector<std::string> holders;
    std::vector<std::string> Get() {
      std::lock_guard guard(mu);
      return holders;
    }
  };
  // `lock`'s watch, once it is active, reporting into `seen`.
  static std::unique_ptr<LockWatch> WatchHolders(Lock& lock, ReportedHolders& seen) {
    auto watch = lock.Watch([&seen](const ObservedRecord& r) {
      std::lock_guard guard(seen.mu);
      seen.holders.push_back(r.record.holder_identity);
    });
    EXPECT_NE(watch, nullptr);
    EXPECT_TRUE(watch != nullptr && Eventually([&] { return watch->active(); }));
    return watch;
  }

  struct Candidate {
    std::string id;
    std::shared_ptr<Elector> elector;
    std::unique_ptr<ElectionHandle> handle;
    std::atomic<int> started{0}, stopped{0};
    std::atomic<uint64_t> token{0};
    std::atomic<int64_t> started_at_ns{0};
  };

  struct Timings {
    std::chrono::nanoseconds lease, renew, retry;
  };
  static constexpr Timings kShort{3s, 2s, 500ms};
  // A retry period no polling follower could hand over within.
  static constexpr Timings kSlowPolling{30s, 20s, 8s};

  std::unique_ptr<Candidate> Run(std::shared_ptr<Cluster> cluster, const std::string& id,
                                 bool release = true, Timings timings = kShort) {
    auto c = std::make_unique<Candidate>();
    c->id = id;
    ElectionConfig config;
    config.lock = NewLeaseLock(cluster, {"default", "leader", id, true});
    config.lease_duration = timings.lease;
    config.renew_deadline = timings.renew;
    config.retry_period = timings.retry;
    config.release_on_cancel = release;
    Candidate* raw = c.get();
    config.callbacks.on_started_leading = [raw](std::stop_token, const LeaderTerm& term) {
      raw->token = term.fencing_token;
      raw->started_at_ns = std::chrono::steady_clock::now().time_since_epoch().count();
      ++raw->started;
    };
    config.callbacks.on_stopped_leading = [raw] { ++raw->stopped; };
    auto elector = Elector::Create(std::move(config));
    EXPECT_TRUE(elector.ok()) << elector.status().ToString();
    c->elector = std::move(*elector);
    c->handle = std::make_unique<ElectionHandle>(c->elector);
    return c;
  }

  std::unique_ptr<testing::InProcessServer> server_;
};

TEST_F(LibraryServerTest, ThreeCandidatesElectOneAndAGracefulReleaseHandsOverAtOnce) {
  std::vector<std::unique_ptr<Candidate>> candidates;
  for (const char* id : {"a", "b", "c"}) {
    candidates.push_back(Run(Connect(), id, /*release=*/true, kSlowPolling));
  }
  auto leaders = [&] {
    int n = 0;
    for (auto& c : candidates) n += c->elector->IsLeader() ? 1 : 0;
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return leaders() == 1; }));
  Candidate* first = nullptr;
  for (auto& c : candidates) {
    if (c->elector->IsLeader()) first = c.get();
  }
  ASSERT_TRUE(Eventually([&] { return first->started.load() == 1; }));
  // Followers learn the leader from the watch.
  ASSERT_TRUE(Eventually([&] {
    for (auto& c : candidates) {
      if (c->elector->Leader() != first->id) return false;
    }
    return true;
  }));
  auto released_at = std::chrono::steady_clock::now();
  first->handle->Stop();  // releases
  ASSERT_TRUE(Eventually([&] { return leaders() == 1; }));
  Candidate* second = nullptr;
  for (auto& c : candidates) {
    if (c->elector->IsLeader()) second = c.get();
  }
  ASSERT_NE(second, first);
  ASSERT_TRUE(Eventually([&] { return second->started.load() == 1; }));  // its callback ran
  auto handover =
      std::chrono::nanoseconds(second->started_at_ns.load()) - released_at.time_since_epoch();
  // Far below the retry period (8 s): the watch, not polling, delivered the release. (Milliseconds
  // in a release build; the bound leaves room for sanitizer builds on a loaded machine.)
  EXPECT_LT(handover, 4s);
  EXPECT_GT(second->token.load(), first->token.load());
}

TEST_F(LibraryServerTest, ACrashedLeaderIsReplacedAfterTheLeaseExpires) {
  auto a = Run(Connect(), "a", /*release=*/false);
  ASSERT_TRUE(Eventually([&] { return a->started.load() == 1; }));
  auto b = Run(Connect(), "b");
  ASSERT_TRUE(Eventually([&] { return b->elector->Leader() == "a"; }));
  auto stopped_at = std::chrono::steady_clock::now();
  a->handle->Stop();  // no release: like a crash, the lease stays with a
  ASSERT_TRUE(Eventually([&] { return b->started.load() == 1; }));
  auto takeover = std::chrono::nanoseconds(b->started_at_ns.load()) - stopped_at.time_since_epoch();
  EXPECT_GT(takeover, 1s);  // had to wait for expiry (3 s after a's last renewal)
  EXPECT_LT(takeover, 8s);  // ~3 s: expiry, then at most a retry period and a request or two
}

// Renewals a quarter second apart must each change the ConfigMap record: the server keeps a
// write that changes no byte as a no-op (same resourceVersion), others count the lease from the
// last change they saw, and the leader moves its deadline only on a renewal that changed it.
TEST_F(LibraryServerTest, EveryConfigMapRenewalChangesTheRecordWithinOneSecond) {
  auto lock = NewConfigMapLock(Connect(), {"default", "cm-leader", "a", false});
  LeaderElectionRecord r;
  r.holder_identity = "a";
  r.lease_duration_seconds = 2;
  r.acquire_time = r.renew_time = *api::ParseTime("2026-12-02T10:00:00.100000Z");
  auto created = lock->Create(r, 5s);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  int64_t version = created->version;
  for (int i = 1; i <= 3; ++i) {
    r.renew_time += 250ms;  // still within the same second
    auto renewed = lock->Update(r, 5s);
    ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
    EXPECT_GT(renewed->version, version) << "renewal " << i << " left the record unchanged";
    EXPECT_EQ(renewed->record.renew_time, r.renew_time);
    version = renewed->version;
  }
}

TEST_F(LibraryServerTest, RenewalsWithoutManagedFieldsKeepTheLeasesEntry) {
  auto cluster = Connect();
  auto lock = NewLeaseLock(cluster, {"default", "fields", "a", false});
  LeaderElectionRecord r;
  r.holder_identity = "a";
  r.lease_duration_seconds = 15;
  r.acquire_time = r.renew_time = *api::ParseTime("2026-12-02T10:00:00.100000Z");
  ASSERT_TRUE(lock->Create(r, 5s).ok());
  for (int i = 0; i < 3; ++i) {
    r.renew_time += 2s;
    auto renewed = lock->Update(r, 5s);
    ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
  }
  // The lock sends its updates without managedFields: the server keeps one entry for the lock's
  // manager, updated by each renewal.
  auto lease = KubeClientOf(*cluster).Call(
      "GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/fields", nullptr, 5s);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  const auto& fields = (*lease)["metadata"]["managedFields"];
  ASSERT_TRUE(fields.is_array()) << lease->dump();
  ASSERT_EQ(fields.size(), 1u) << fields.dump();
  EXPECT_EQ(fields[0]["operation"], "Update");
  EXPECT_TRUE(fields[0]["fieldsV1"].contains("f:spec")) << fields.dump();
  EXPECT_EQ((*lease)["spec"]["renewTime"], "2026-12-02T10:00:06.100000Z");
}

TEST_F(LibraryServerTest, ALockWithLabelsKeepsThemAndWatchesOnlyObjectsThatCarryThem) {
  auto cluster = Connect();
  client::KubeClient& raw = KubeClientOf(*cluster);
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  auto lease = [](const std::string& holder, bool labelled) {
    nlohmann::json object = {{"apiVersion", "coordination.k8s.io/v1"},
                             {"kind", "Lease"},
                             {"metadata", {{"name", "grouped"}}},
                             {"spec", {{"holderIdentity", holder}}}};
    if (labelled) object["metadata"]["labels"] = {{"group", "one"}};
    return object;
  };
  auto body = lease("p", false);
  auto created = raw.Call("POST", leases, &body, 5s);
  ASSERT_TRUE(created.ok()) << created.status().ToString();

  KubeLockOptions options{"default", "grouped", "a", false};
  options.labels = {{"group", "one"}, {"tier", "x"}};
  auto lock = NewLeaseLock(cluster, options);
  ReportedHolders seen;
  auto watch = WatchHolders(*lock, seen);
  ASSERT_NE(watch, nullptr);
  // Changes of the object without the lock's labels do not reach its watch; one that gives it
  // them does (ADDED: it enters the selection).
  auto put = [&](const std::string& holder, bool labelled) {
    auto current = raw.Call("GET", leases + "/grouped", nullptr, 5s);
    ASSERT_TRUE(current.ok()) << current.status().ToString();
    auto next = lease(holder, labelled);
    if (labelled) next["metadata"]["labels"]["tier"] = "x";
    next["metadata"]["resourceVersion"] = (*current)["metadata"]["resourceVersion"];
    ASSERT_TRUE(raw.Call("PUT", leases + "/grouped", &next, 5s).ok());
  };
  put("q", false);
  put("r", true);
  ASSERT_TRUE(Eventually([&] { return !seen.Get().empty(); }));
  EXPECT_EQ(seen.Get().front(), "r");
  // The lock's own writes put its labels back on an object that lost them. Losing them is a
  // DELETED on the lock's watch, which does not say the lease is free: not reported. The echo of
  // the lock's own write is reported only when it arrives before the write's reply (which told
  // the lock already); the next write of someone else that keeps the labels is.
  put("s", false);
  ASSERT_TRUE(lock->Get(5s).ok());
  LeaderElectionRecord record;
  record.holder_identity = "a";
  record.lease_duration_seconds = 15;
  ASSERT_TRUE(lock->Update(record, 5s).ok());
  put("t", true);
  ASSERT_TRUE(Eventually([&] { return seen.Get().back() == "t"; }));  // in the selection
  std::vector<std::string> holders = seen.Get();
  EXPECT_TRUE(holders == (std::vector<std::string>{"r", "t"}) ||
              holders == (std::vector<std::string>{"r", "a", "t"}))
      << ::testing::PrintToString(holders);
  auto stored = raw.Call("GET", leases + "/grouped", nullptr, 5s);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)["metadata"]["labels"], (nlohmann::json{{"group", "one"}, {"tier", "x"}}));
  // A lock that creates its object labels it.
  KubeLockOptions fresh{"default", "fresh", "a", false};
  fresh.labels = {{"group", "two"}};
  ASSERT_TRUE(NewLeaseLock(cluster, fresh)->Create(record, 5s).ok());
  stored = raw.Call("GET", leases + "/fresh", nullptr, 5s);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)["metadata"]["labels"], (nlohmann::json{{"group", "two"}}));
}

// Labels the server would refuse fail every call of the lock at once, with the server's own
// message, and nothing is sent (they would fail every write with 422 and the watch with 400).
TEST_F(LibraryServerTest, ALockWithLabelsTheServerWouldRefuseFailsAtOnceWithTheServersMessage) {
  auto cluster = Connect();
  client::KubeClient& raw = KubeClientOf(*cluster);
  const std::map<std::string, std::string> bad = {{"bad key", "x"}, {"ok", "not a value!"}};
  nlohmann::json body = {{"apiVersion", "coordination.k8s.io/v1"},
                         {"kind", "Lease"},
                         {"metadata", {{"name", "labelled"}, {"labels", bad}}}};
  auto refused =
      raw.Call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", &body, 5s);
  ASSERT_EQ(refused.status().reason(), Reason::kInvalid) << refused.status().ToString();

  KubeLockOptions options{"default", "labelled", "a", false};
  options.labels = bad;
  auto lock = NewLeaseLock(cluster, options);
  const uint64_t requests = raw.requests();
  LeaderElectionRecord record;
  record.holder_identity = "a";
  record.lease_duration_seconds = 15;
  auto created = lock->Create(record, 5s);
  EXPECT_EQ(created.status().reason(), Reason::kInvalid);
  EXPECT_EQ(created.status().message(), refused.status().message());
  EXPECT_EQ(lock->Get(5s).status().reason(), Reason::kInvalid);
  EXPECT_EQ(lock->Update(record, 5s).status().reason(), Reason::kInvalid);
  EXPECT_EQ(lock->UpdateAt(record, 1, 5s).status().reason(), Reason::kInvalid);
  EXPECT_EQ(lock->Watch([](const ObservedRecord&) {}), nullptr);
  EXPECT_EQ(raw.requests(), requests);
}

// A leader's watch brings the echo of each of its renewals, which the renewal's reply gave the
// lock already: events at or below the newest version the lock wrote are neither parsed for it
// nor reported (an echo that arrives before its reply still is). Deterministically: the lock
// writes before its watch starts, and the watch's first listing holds that version. A read does
// not hide what it read from the watch (its caller may not look at it).
TEST_F(LibraryServerTest, ALocksWatchSkipsWhatItsOwnWritesToldItAlready) {
  auto cluster = Connect();
  client::KubeClient& raw = KubeClientOf(*cluster);
  auto lock = NewLeaseLock(cluster, {"default", "echoes", "a", false});
  LeaderElectionRecord record;
  record.holder_identity = "a";
  record.lease_duration_seconds = 15;
  ASSERT_TRUE(lock->Create(record, 5s).ok());
  record.leader_transitions = 1;
  ASSERT_TRUE(lock->Update(record, 5s).ok());
  ReportedHolders seen;
  auto watch = WatchHolders(*lock, seen);  // listed, then watching
  ASSERT_NE(watch, nullptr);
  const std::string path = "/apis/coordination.k8s.io/v1/namespaces/default/leases/echoes";
  auto current = raw.Call("GET", path, nullptr, 5s);
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  (*current)["spec"]["holderIdentity"] = "b";
  ASSERT_TRUE(raw.Call("PUT", path, &*current, 5s).ok());
  ASSERT_TRUE(Eventually([&] { return !seen.Get().empty() && seen.Get().back() == "b"; }));
  EXPECT_EQ(seen.Get(), (std::vector<std::string>{"b"}));  // the listed "a" was known
  watch.reset();

  current = raw.Call("GET", path, nullptr, 5s);
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  (*current)["spec"]["holderIdentity"] = "c";
  ASSERT_TRUE(raw.Call("PUT", path, &*current, 5s).ok());
  auto read = lock->Get(5s);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->record.holder_identity, "c");
  ReportedHolders after_read;
  auto second = WatchHolders(*lock, after_read);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(Eventually([&] { return !after_read.Get().empty(); }));
  EXPECT_EQ(after_read.Get(), (std::vector<std::string>{"c"}));
}

// One stream, two kinds of subscriber: one of text gets each watched object as the server sent
// it (managedFields included), one of trees the same object without them. Both subscribe before
// the Lease exists: a named subscriber that joins later does not get a listing of its own.
TEST_F(LibraryServerTest, SubscribersOfTextAndOfTreesShareAStreamAndSeeTheSameObjects) {
  auto cluster = Connect();
  client::KubeClient& raw = KubeClientOf(*cluster);
  std::mutex mu;
  std::vector<std::pair<std::string, nlohmann::json>> trees;
  std::vector<std::pair<std::string, std::string>> texts;
  const std::string collection = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  auto tree_subscription =
      raw.WatchObject(collection, "views", [&](const std::string& type, const nlohmann::json& o) {
        std::lock_guard guard(mu);
        trees.emplace_back(type, o);
      });
  auto text_subscription =
      raw.WatchObjectText(collection, "views", [&](const std::string& type, std::string_view o) {
        std::lock_guard guard(mu);
        texts.emplace_back(type, std::string(o));
      });
  const auto both = [&](size_t n) {
    return Eventually([&] {
      std::lock_guard guard(mu);
      return trees.size() >= n && texts.size() >= n;
    });
  };
  auto lock = NewLeaseLock(cluster, {"default", "views", "a", false});
  LeaderElectionRecord record;
  record.holder_identity = "a";
  record.lease_duration_seconds = 15;
  auto created = lock->Create(record, 5s);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_TRUE(both(1));
  auto current = raw.Call("GET", collection + "/views", nullptr, 5s);
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  (*current)["spec"]["holderIdentity"] = "b";
  ASSERT_TRUE(raw.Call("PUT", collection + "/views", &*current, 5s).ok());
  ASSERT_TRUE(raw.Call("DELETE", collection + "/views", nullptr, 5s).ok());
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard guard(mu);
    return !trees.empty() && trees.back().first == "DELETED" && !texts.empty() &&
           texts.back().first == "DELETED";
  }));
  std::lock_guard guard(mu);
  // The two subscribers' streams end alike: the update, then the deletion.
  ASSERT_GE(trees.size(), 3u);
  ASSERT_GE(texts.size(), 3u);
  for (size_t back = 1; back <= 2; ++back) {
    const auto& [tree_type, tree] = trees[trees.size() - back];
    const auto& [text_type, text] = texts[texts.size() - back];
    EXPECT_EQ(tree_type, text_type);
    EXPECT_FALSE(tree["metadata"].contains("managedFields"));
    EXPECT_NE(text.find("\"managedFields\""), std::string::npos) << text;
    nlohmann::json parsed = nlohmann::json::parse(text);
    parsed["metadata"].erase("managedFields");
    EXPECT_EQ(parsed, tree);
  }
  EXPECT_EQ(trees[trees.size() - 2].second["spec"]["holderIdentity"], "b");
}

TEST_F(LibraryServerTest, ElectorsOfOneClusterShareConnectionsAndOneWatch) {
  auto cluster = Connect();
  std::vector<std::unique_ptr<Candidate>> group;
  for (int i = 0; i < 5; ++i) group.push_back(Run(cluster, "m" + std::to_string(i)));
  ASSERT_TRUE(Eventually([&] {
    int n = 0;
    for (auto& c : group) n += c->elector->IsLeader() ? 1 : 0;
    return n == 1 && group[4]->elector->Leader() != "";
  }));
  // Steady state: the leader renews every 500 ms; followers make no requests besides the one
  // watch stream they share. Startup traffic (a follower's retry before the shared watch runs,
  // leadership events) may spill into the first window, so look for a quiet 2 s window; four
  // polling followers would make ~16 requests in every window.
  uint64_t during = 0;
  EXPECT_TRUE(Eventually([&] {
    uint64_t before = cluster->requests();
    std::this_thread::sleep_for(2s);  // the measured window
    during = cluster->requests() - before;
    return during <= 6u;  // ~4 renewals by the leader, no polling by the four followers
  })) << "requests in the last 2 s window: "
      << during;
}

TEST_F(LibraryServerTest, LeadershipEventsAreRecordedOnTheLease) {
  auto cluster = Connect();
  auto a = Run(cluster, "a");
  ASSERT_TRUE(Eventually([&] { return a->started.load() == 1; }));
  a->handle->Stop();
  ASSERT_TRUE(Eventually([&] {
    auto events =
        KubeClientOf(*cluster).Call("GET", "/api/v1/namespaces/default/events", nullptr, 5s);
    if (!events.ok()) return false;
    bool became = false, stopped = false;
    for (const auto& e : (*events)["items"]) {
      became |= e.value("message", "") == "a became leader";
      stopped |= e.value("message", "") == "a stopped leading";
    }
    return became && stopped;
  }));
}

}  // namespace
}  // namespace tenure
