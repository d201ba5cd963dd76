// EtcdStore beyond the shared Store contract (store_conformance_test.cc): endpoint parsing, key
// layout, several stores on one cluster (tenure replicas), failover when a member dies, TLS.
#include "store/etcd_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "store/store_test_util.h"
#include "store/testing/etcd_test_cluster.h"
#include "tenure/fake_clock.h"

namespace tenure::store {
namespace {

using test_util::Collector;
using test_util::Create;
using test_util::TempDir;
using test_util::Update;

std::string UniquePrefix(const std::string& name) {
  static int n = 0;
  return "/etcd-store-test-" + std::to_string(getpid()) + "-" + name + "-" + std::to_string(n++);
}

// The client URLs of the members that are not the raft leader: a store on them alone keeps the
// cluster's leader when one of them is paused.
std::vector<std::string> FollowerUrls(const testing::EtcdTestCluster& cluster) {
  std::vector<std::string> out;
  for (int i = 0; i < cluster.size(); ++i) {
    if (!cluster.IsLeader(i)) out.push_back(cluster.ClientUrl(i));
  }
  return out;
}

int MemberOf(const testing::EtcdTestCluster& cluster, const std::string& url) {
  for (int i = 0; i < cluster.size(); ++i) {
    if (cluster.ClientUrl(i) == url) return i;
  }
  return -1;
}

std::unique_ptr<EtcdStore> MustOpen(const EtcdStoreOptions& options) {
  auto store = EtcdStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(*store) : nullptr;
}

TEST(ParseEtcdEndpointsTest, AcceptsListsAndRejectsGarbage) {
  auto ok = ParseEtcdEndpoints("http://127.0.0.1:2379, https://10.0.0.1:2379,etcd-0:2379");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->size(), 3u);
  EXPECT_EQ((*ok)[1], "https://10.0.0.1:2379");
  for (const char* bad :
       {"", " , ", "ftp://h:1", "http://host", "http://host:port", "http://h:1/path", ":2379"}) {
    auto r = ParseEtcdEndpoints(bad);
    EXPECT_EQ(r.status().reason(), Reason::kBadRequest) << bad;
  }
}

// Tests start etcd members side by side: a member whose port another process took first exits
// during start, and the cluster starts again on new ports (finding 30: before, another test's
// etcd could answer for it).
TEST(EtcdTestClusterTest, AMemberThatLostItsPortStartsElsewhere) {
  auto first = testing::EtcdTestCluster::Start({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::string taken = (*first)->ClientUrl(0);
  testing::EtcdTestClusterOptions options;
  options.first_client_port_for_test =
      static_cast<uint16_t>(std::stoi(taken.substr(taken.rfind(':') + 1)));
  auto second = testing::EtcdTestCluster::Start(options);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_NE((*second)->ClientUrl(0), taken);
  EXPECT_TRUE((*second)->Running(0));
}

TEST(EtcdStoreTest, OpenFailsWithinTheDeadlineWhenNothingListens) {
  EtcdStoreOptions options;
  options.endpoints = {"http://127.0.0.1:1"};
  options.request_timeout = std::chrono::milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  auto store = EtcdStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(store.status().reason() == Reason::kServiceUnavailable ||
              store.status().reason() == Reason::kTimeout)
      << store.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  options.endpoints = {};
  EXPECT_EQ(EtcdStore::Open(options).status().reason(), Reason::kBadRequest);
}

class EtcdSingleMemberTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto cluster = testing::EtcdTestCluster::Start({});
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(*cluster).release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  EtcdStoreOptions Options(const std::string& prefix) {
    EtcdStoreOptions options;
    if (cluster_ != nullptr) options.endpoints = cluster_->ClientUrls();
    options.prefix = prefix;
    return options;
  }
  static testing::EtcdTestCluster* cluster_;
};
testing::EtcdTestCluster* EtcdSingleMemberTest::cluster_ = nullptr;

TEST_F(EtcdSingleMemberTest, KeysLiveUnderThePrefixInEtcd) {
  std::string prefix = UniquePrefix("layout");
  auto store = MustOpen(Options(prefix));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->WriteSync(Create("/registry/leases/ns/name", "v")).ok());
  auto outside = store->WriteSync(Create("/elsewhere/x", "v"));
  EXPECT_EQ(outside.status().reason(), Reason::kBadRequest);
  // A store with an empty prefix sees raw etcd keys (below its "/registry" root).
  auto raw = MustOpen(Options(""));
  ASSERT_NE(raw, nullptr);
  auto got = raw->Get("/registry" + prefix + "/leases/ns/name");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->value, "v");
  // Another prefix is another key space.
  auto other = MustOpen(Options(UniquePrefix("other")));
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(other->Get("/registry/leases/ns/name").status().IsNotFound());
  auto listed = other->List("/registry/");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->items.empty());
}

TEST_F(EtcdSingleMemberTest, ListPagesThroughOneSnapshot) {
  EtcdStoreOptions options = Options(UniquePrefix("pages"));
  options.list_page_size = 7;
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);
  constexpr int kKeys = 60;  // several pages
  struct Progress {
    std::atomic<int> acknowledged{0};
    std::atomic<int> failed{0};
    std::promise<void> all_written;
  };
  // Shared with the callbacks, so that a late one finds it alive even if the test failed early.
  auto progress = std::make_shared<Progress>();
  for (int i = 0; i < kKeys; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "/registry/many/%05d", i);
    store->Write(Create(name, "v"), [progress](Result<KeyValue> r) {
      if (!r.ok()) progress->failed++;
      if (progress->acknowledged.fetch_add(1) + 1 == kKeys) progress->all_written.set_value();
    });
  }
  ASSERT_EQ(progress->all_written.get_future().wait_for(test_util::kDeadline),
            std::future_status::ready);
  ASSERT_EQ(progress->failed.load(), 0);
  ASSERT_TRUE(store->WriteSync(Create("/registry/many/~last", "v")).ok());
  auto listed = store->List("/registry/many/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->items.size(), static_cast<size_t>(kKeys + 1));
  for (size_t i = 1; i < listed->items.size(); ++i) {
    EXPECT_LT(listed->items[i - 1].key, listed->items[i].key);
  }
}

// Two stores on one cluster are two tenure replicas: each sees the other's writes, in watches too.
TEST_F(EtcdSingleMemberTest, ReplicasShareObjectsRevisionsAndWatches) {
  std::string prefix = UniquePrefix("replicas");
  auto a = MustOpen(Options(prefix));
  auto b = MustOpen(Options(prefix));
  ASSERT_TRUE(a && b);
  Collector on_b;
  auto watch = b->Watch("/registry/leases/", 0, on_b.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  auto created = a->WriteSync(Create("/registry/leases/ns/l", "1"));
  ASSERT_TRUE(created.ok());
  ASSERT_TRUE(on_b.WaitForRevision(created->mod_revision));
  EXPECT_EQ(b->CurrentRevision(), created->mod_revision);
  // b's compare-and-swap with the revision a handed out.
  auto updated = b->WriteSync(Update("/registry/leases/ns/l", "2", created->mod_revision));
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  auto stale = a->WriteSync(Update("/registry/leases/ns/l", "3", created->mod_revision));
  EXPECT_TRUE(stale.status().IsConflict());
  ASSERT_TRUE(on_b.WaitForRevision(updated->mod_revision));
  EXPECT_EQ(on_b.events().size(), 2u);
}

// The watch history is bounded per object under the prefix: counted at Open, then from the
// watch, both ways.
TEST_F(EtcdSingleMemberTest, TheWatchHistoryIsBoundedPerObject) {
  std::string prefix = UniquePrefix("bounded");
  auto seed = MustOpen(Options(prefix));
  ASSERT_TRUE(seed);
  ASSERT_TRUE(seed->WriteSync(Create("/registry/k/a", "v")).ok());
  ASSERT_TRUE(seed->WriteSync(Create("/registry/k/b", "v")).ok());
  EtcdStoreOptions options = Options(prefix);
  options.watch_history_min = 4;
  options.watch_history_per_object = 2;
  options.watch_history_min_age = std::chrono::nanoseconds(0);
  auto store = MustOpen(options);
  ASSERT_TRUE(store);
  Collector all;
  auto watch = store->Watch("/registry/", 0, all.Callback());
  ASSERT_TRUE(watch.ok());
  std::vector<int64_t> revisions;  // of every write through `store`
  auto write = [&](WriteOp op) {
    auto written = store->WriteSync(std::move(op));
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    revisions.push_back(written->mod_revision);
    ASSERT_TRUE(all.WaitForRevision(written->mod_revision));
  };
  // The newest `kept` writes are in the history: a watch from the one before them replays them,
  // one from earlier is Gone.
  auto expect_kept = [&](size_t kept) {
    SCOPED_TRACE("kept " + std::to_string(kept));
    int64_t oldest = revisions[revisions.size() - kept - 1];
    Collector replay;
    auto ok = store->Watch("/registry/", oldest, replay.Callback());
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    ASSERT_TRUE(replay.WaitForRevision(revisions.back()));
    EXPECT_EQ(replay.events().size(), kept);
    auto gone = store->Watch("/registry/", oldest - 1, [](const std::vector<Event>&) {});
    EXPECT_TRUE(gone.status().IsGone()) << gone.status().ToString();
  };
  for (int i = 0; i < 10; ++i) write(Update("/registry/k/a", "a" + std::to_string(i)));
  expect_kept(4);  // two objects
  for (const char* key : {"/registry/k/c", "/registry/k/d", "/registry/k/e", "/registry/k/f"}) {
    write(Create(key, "v"));
  }
  for (int i = 0; i < 14; ++i) write(Update("/registry/k/a", "b" + std::to_string(i)));
  expect_kept(12);  // six
  for (const char* key : {"/registry/k/c", "/registry/k/d", "/registry/k/e", "/registry/k/f"}) {
    write(WriteOp{WriteOp::Kind::kDelete, key, "", 0});
  }
  expect_kept(4);  // two again
}

// Each replica notes the versions it wrote and the ones its watch showed, so an update naming
// that version can skip its read; a deletion drops them.
TEST_F(EtcdSingleMemberTest, ReplicasKnowWhatTheyWroteAndWhatTheirWatchShowed) {
  std::string prefix = UniquePrefix("known");
  auto a = MustOpen(Options(prefix));
  auto b = MustOpen(Options(prefix));
  ASSERT_TRUE(a && b);
  Collector on_a, on_b;
  auto watch_a = a->Watch("/registry/leases/", 0, on_a.Callback());
  auto watch_b = b->Watch("/registry/leases/", 0, on_b.Callback());
  ASSERT_TRUE(watch_a.ok() && watch_b.ok());
  const std::string key = "/registry/leases/ns/known";
  auto created = a->WriteSync(Create(key, "1"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto on_a_now = a->KnownValue(key, created->mod_revision);  // its own write: at once
  ASSERT_TRUE(on_a_now);
  EXPECT_EQ(on_a_now->value, "1");
  EXPECT_EQ(on_a_now->create_revision, created->mod_revision);
  EXPECT_FALSE(a->KnownValue(key, created->mod_revision + 1));
  EXPECT_FALSE(a->KnownValue("/registry/leases/ns/other", created->mod_revision));
  ASSERT_TRUE(on_b.WaitForRevision(created->mod_revision));
  ASSERT_TRUE(b->KnownValue(key, created->mod_revision));  // through its watch
  EXPECT_EQ(b->KnownValue(key, created->mod_revision)->value, "1");

  auto updated = b->WriteSync(Update(key, "2", created->mod_revision));
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  ASSERT_TRUE(on_a.WaitForRevision(updated->mod_revision));
  EXPECT_FALSE(a->KnownValue(key, created->mod_revision));  // superseded
  ASSERT_TRUE(a->KnownValue(key, updated->mod_revision));
  EXPECT_EQ(a->KnownValue(key, updated->mod_revision)->value, "2");
  EXPECT_EQ(a->KnownValue(key, updated->mod_revision)->create_revision, created->mod_revision);

  auto deleted = a->WriteSync(test_util::Delete(key, updated->mod_revision));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_FALSE(a->KnownValue(key, updated->mod_revision));
  ASSERT_TRUE(on_b.WaitForRevision(deleted->mod_revision));
  EXPECT_FALSE(b->KnownValue(key, updated->mod_revision));
}

// Consistent reads are answered from each replica's watch-fed copy and are never stale: a write
// one replica acknowledged is in every Get and List another replica begins afterwards, while
// both replicas write in turn and readers on both read as fast as they can.
TEST_F(EtcdSingleMemberTest, TwoReplicasRacingNeverReadAStaleValueFromTheirCopies) {
  std::string prefix = UniquePrefix("race");
  auto a = MustOpen(Options(prefix));
  auto b = MustOpen(Options(prefix));
  ASSERT_TRUE(a && b);
  const std::string key = "/registry/leases/ns/race";
  auto created = a->WriteSync(Create(key, "0"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  // The newest revision acknowledged to a writer: a read that begins after it must show it.
  std::atomic<int64_t> acknowledged{created->mod_revision};
  std::atomic<bool> writing{true};
  std::atomic<int> stale{0}, failed{0}, reads{0};
  auto read_loop = [&](EtcdStore& store, bool list) {
    while (writing.load()) {
      const int64_t before = acknowledged.load();
      int64_t seen = 0;
      if (list) {
        auto listed = store.List("/registry/leases/ns/");
        if (!listed.ok() || listed->items.size() != 1) {
          ++failed;
          continue;
        }
        seen = listed->items[0].mod_revision;
        if (listed->revision < before) ++stale;
      } else {
        auto got = store.Get(key);
        if (!got.ok()) {
          ++failed;
          continue;
        }
        seen = got->mod_revision;
      }
      if (seen < before) ++stale;
      ++reads;
    }
  };
  std::vector<std::jthread> readers;
  readers.emplace_back(read_loop, std::ref(*a), false);
  readers.emplace_back(read_loop, std::ref(*b), false);
  readers.emplace_back(read_loop, std::ref(*a), true);
  readers.emplace_back(read_loop, std::ref(*b), true);
  // Destroyed before `readers` (which join): stops them also when an assertion below returns.
  struct StopReaders {
    std::atomic<bool>& writing;
    ~StopReaders() { writing = false; }
  } stop_readers{writing};
  int64_t revision = created->mod_revision;
  constexpr int kWrites = 200;
  for (int i = 1; i <= kWrites; ++i) {
    EtcdStore& writer = i % 2 == 0 ? *a : *b;
    EtcdStore& other = i % 2 == 0 ? *b : *a;
    auto written = writer.WriteSync(Update(key, std::to_string(i), revision));
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    revision = written->mod_revision;
    acknowledged = revision;
    // At once on the other replica, whose watch may not have brought the write yet.
    auto got = other.Get(key);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->value, std::to_string(i));
    ASSERT_EQ(got->mod_revision, revision);
  }
  writing = false;
  readers.clear();
  EXPECT_EQ(stale.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_GT(reads.load(), 0);
  // Answered from the copies; the readers waiting together shared their revision requests.
  const auto on_a = a->reads(), on_b = b->reads();
  EXPECT_EQ(on_a.from_etcd + on_b.from_etcd, 0u);
  EXPECT_GE(on_a.from_cache + on_b.from_cache, static_cast<uint64_t>(kWrites));
  EXPECT_LE(on_a.revision_requests, on_a.from_cache);
  EXPECT_LE(on_b.revision_requests, on_b.from_cache);
}

// The copy's revision follows etcd's also when the last write was outside the prefix (another
// prefix here; compact_rev_key in a real deployment): a read then does not wait for a write of
// its own prefix.
TEST_F(EtcdSingleMemberTest, AWriteOutsideThePrefixDoesNotHoldBackTheReads) {
  auto store = MustOpen(Options(UniquePrefix("mine")));
  auto elsewhere = MustOpen(Options(UniquePrefix("theirs")));
  ASSERT_TRUE(store && elsewhere);
  ASSERT_TRUE(store->WriteSync(Create("/registry/k/mine", "v")).ok());
  ASSERT_TRUE(elsewhere->WriteSync(Create("/registry/k/theirs", "v")).ok());
  auto start = std::chrono::steady_clock::now();
  auto got = store->Get("/registry/k/mine");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(store->Get("/registry/k/theirs").status().IsNotFound());
  // Well within the 3 s a read waits for the copy before it goes to etcd.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(store->reads().from_etcd, 0u);
  EXPECT_EQ(store->reads().from_cache, 2u);
}

// With the copy off (ConsistentListFromCache=false) every read goes to etcd, as before.
TEST_F(EtcdSingleMemberTest, WithoutTheCopyReadsGoToEtcd) {
  EtcdStoreOptions options = Options(UniquePrefix("direct"));
  options.reads_from_watch_cache = false;
  auto store = MustOpen(options);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->WriteSync(Create("/registry/k/a", "v")).ok());
  ASSERT_TRUE(store->Get("/registry/k/a").ok());
  auto listed = store->List("/registry/k/");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(store->reads().from_cache, 0u);
  EXPECT_EQ(store->reads().from_etcd, 2u);
  EXPECT_EQ(store->reads().revision_requests, 0u);
}

// Every interval the revision noted one interval earlier is compacted (kube-apiserver's
// protocol on compact_rev_key): a watch from before it is then Gone.
TEST_F(EtcdSingleMemberTest, CompactsTheRevisionNotedOneIntervalEarlier) {
  constexpr auto kInterval = std::chrono::minutes(5);
  constexpr auto kRealWait = std::chrono::seconds(30);
  auto clock = std::make_shared<FakeClock>();
  EtcdStoreOptions options = Options(UniquePrefix("compact"));
  options.compaction_interval = kInterval;
  options.clock = clock;
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);
  auto first = store->WriteSync(Create("/registry/k/a", "1"));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(clock->WaitForSleepers(1, kRealWait));
  clock->Advance(kInterval);  // notes the current revision, compacts nothing yet
  ASSERT_TRUE(clock->WaitForSleepers(1, kRealWait));
  Collector collector;
  auto before = store->Watch("/registry/k/", first->mod_revision, collector.Callback());
  EXPECT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_TRUE(store->WriteSync(Create("/registry/k/b", "2")).ok());
  clock->Advance(kInterval);  // compacts the revision noted above (after `first`)
  ASSERT_TRUE(clock->WaitForSleepers(1, kRealWait));
  auto after = store->Watch("/registry/k/", first->mod_revision, collector.Callback());
  EXPECT_TRUE(after.status().IsGone()) << after.status().ToString();
  EXPECT_TRUE(store->Watch("/registry/k/", store->CurrentRevision(), collector.Callback()).ok());
}

// The CA signs a server certificate for 127.0.0.1 and a client certificate.
struct TestPki {
  TempDir dir;
  bool Make() {
    std::string d = dir.File("");
    std::ofstream(dir.File("server.ext")) << "subjectAltName=IP:127.0.0.1\n"
                                             "extendedKeyUsage=serverAuth,clientAuth\n";
    std::ofstream(dir.File("client.ext")) << "extendedKeyUsage=clientAuth\n";
    std::string script =
        "cd '" + d +
        "' && "
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
        "-keyout ca.key -out ca.crt -days 1 -subj /CN=tenure-test-ca && "
        "for n in server client; do "
        "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $n.key "
        "-out $n.csr -subj /CN=$n && "
        "openssl x509 -req -in $n.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out $n.crt "
        "-days 1 -extfile $n.ext || exit 1; done >/dev/null 2>&1";
    return dir.ok() && std::system(script.c_str()) == 0;
  }
};

TEST(EtcdTlsTest, ClientCertificateAndCaAreUsed) {
  TestPki pki;
  ASSERT_TRUE(pki.Make()) << "openssl failed";
  testing::EtcdTestClusterOptions cluster_options;
  cluster_options.server_cert_file = pki.dir.File("server.crt");
  cluster_options.server_key_file = pki.dir.File("server.key");
  cluster_options.client_ca_file = pki.dir.File("ca.crt");
  auto cluster = testing::EtcdTestCluster::Start(cluster_options);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  EtcdStoreOptions options;
  options.endpoints = (*cluster)->ClientUrls();
  ASSERT_EQ(options.endpoints[0].rfind("https://", 0), 0u);
  options.prefix = UniquePrefix("tls");
  options.ca_file = pki.dir.File("ca.crt");
  options.cert_file = pki.dir.File("client.crt");
  options.key_file = pki.dir.File("client.key");
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);
  auto created = store->WriteSync(Create("/registry/leases/ns/tls", "v"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Collector collector;
  auto watch = store->Watch("/registry/leases/", created->mod_revision - 1, collector.Callback());
  ASSERT_TRUE(watch.ok());
  ASSERT_TRUE(collector.WaitForRevision(created->mod_revision));

  // Without the client certificate etcd refuses the connection.
  options.cert_file.clear();
  options.key_file.clear();
  options.request_timeout = std::chrono::milliseconds(1000);
  EXPECT_FALSE(EtcdStore::Open(options).ok());
  // A key without its certificate is bad input.
  options.key_file = pki.dir.File("client.key");
  EXPECT_EQ(EtcdStore::Open(options).status().reason(), Reason::kBadRequest);
}

// kill -9 of the member a store talks to: the store fails over, no acknowledged write is lost,
// and its watch resumes without gap or duplicate.
TEST(EtcdFailoverTest, SurvivesTheDeathOfItsMember) {
  testing::EtcdTestClusterOptions cluster_options;
  cluster_options.members = 3;
  auto cluster = testing::EtcdTestCluster::Start(cluster_options);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  EtcdStoreOptions options;
  options.endpoints = (*cluster)->ClientUrls();
  options.prefix = UniquePrefix("failover");
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);
  Collector collector;
  auto watch = store->Watch("/registry/", 0, collector.Callback());
  ASSERT_TRUE(watch.ok());

  std::set<int64_t> acknowledged;
  std::string key = "/registry/counters/c";
  auto created = store->WriteSync(Create(key, "0"));
  ASSERT_TRUE(created.ok());
  acknowledged.insert(created->mod_revision);
  int value = 0;
  auto write_next = [&] {
    auto r = store->WriteSync(Update(key, std::to_string(value + 1)));
    if (r.ok()) {
      ++value;
      acknowledged.insert(r->mod_revision);
    } else {
      // An unknown outcome is reported as such, never as a wrong success.
      EXPECT_TRUE(r.status().reason() == Reason::kServiceUnavailable ||
                  r.status().reason() == Reason::kTimeout)
          << r.status().ToString();
    }
    return r.ok();
  };
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(write_next());

  std::string used = store->CurrentEndpoint();
  int victim = 0;
  for (int i = 0; i < (*cluster)->size(); ++i) {
    if ((*cluster)->ClientUrl(i) == used) victim = i;
  }
  (*cluster)->Kill(victim);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int successes = 0;
  while (successes < 20 && std::chrono::steady_clock::now() < deadline) {
    if (write_next()) ++successes;
  }
  ASSERT_EQ(successes, 20) << "writes did not resume after killing " << used;
  EXPECT_NE(store->CurrentEndpoint(), used);

  // Every acknowledged write is visible, reads included.
  auto got = store->Get(key);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->mod_revision, *acknowledged.rbegin());
  ASSERT_TRUE(collector.WaitForRevision(*acknowledged.rbegin()));
  std::vector<int64_t> seen = collector.revisions();
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_LT(seen[i - 1], seen[i]);
  std::set<int64_t> seen_set(seen.begin(), seen.end());
  for (int64_t r : acknowledged) EXPECT_TRUE(seen_set.count(r)) << "watch missed revision " << r;
  std::vector<Event> events = collector.events();
  EXPECT_EQ(events.back().kv.value, got->value);
}

// Three members; the store under test talks to the two followers only, so that pausing the
// one it uses keeps the cluster's leader.
class EtcdHungMemberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::EtcdTestClusterOptions cluster_options;
    cluster_options.members = 3;
    auto started = testing::EtcdTestCluster::Start(cluster_options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    cluster = std::move(*started);
  }
  EtcdStoreOptions FollowerOptions(const std::string& name, std::chrono::milliseconds request,
                                   std::chrono::milliseconds attempt) {
    EtcdStoreOptions options;
    options.endpoints = FollowerUrls(*cluster);
    EXPECT_EQ(options.endpoints.size(), 2u);
    options.prefix = UniquePrefix(name);
    options.request_timeout = request;
    options.attempt_timeout = attempt;
    return options;
  }
  // Opens a store and waits until its watch delivered a first write: the member it talks to
  // is settled then (at start, a watch refused while the cluster settles moves the store on).
  std::unique_ptr<EtcdStore> OpenSettled(const EtcdStoreOptions& options) {
    auto store = MustOpen(options);
    if (store == nullptr) return nullptr;
    Collector settled;
    auto watch = store->Watch("/registry/settle/", 0, settled.Callback());
    EXPECT_TRUE(watch.ok());
    auto written = store->WriteSync(Create("/registry/settle/first", "x"));
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    if (!watch.ok() || !written.ok() || !settled.WaitForRevision(written->mod_revision)) {
      return nullptr;
    }
    return store;
  }
  // A store like `options` on every member but `member` (another replica, not hung).
  std::unique_ptr<EtcdStore> OpenAvoiding(EtcdStoreOptions options, int member) {
    options.endpoints.clear();
    for (int i = 0; i < cluster->size(); ++i) {
      if (i != member) options.endpoints.push_back(cluster->ClientUrl(i));
    }
    return MustOpen(options);
  }
  std::unique_ptr<testing::EtcdTestCluster> cluster;
};

// The member a store talks to hangs (SIGSTOP: its connection stays open, nothing answers).
// An update that names its revision goes to the hung member first, gets no answer within
// attempt_timeout and is resent to another member, within the request timeout; reads and later
// writes go to the others.
TEST_F(EtcdHungMemberTest, ReadsAndConditionalWritesGoOnThroughTheOtherMembers) {
  auto store =
      OpenSettled(FollowerOptions("hung", std::chrono::seconds(4), std::chrono::milliseconds(500)));
  ASSERT_NE(store, nullptr);
  std::string key = "/registry/leases/l";
  auto created = store->WriteSync(Create(key, "0"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  int hung = MemberOf(*cluster, store->CurrentEndpoint());

  cluster->Pause(hung);
  auto renewed = store->WriteSync(Update(key, "1", created->mod_revision));
  auto got = store->Get(key);
  auto renewed_again = store->WriteSync(Update(key, "2", renewed.ok() ? renewed->mod_revision : 0));
  cluster->Resume(hung);

  ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
  EXPECT_GT(renewed->mod_revision, created->mod_revision);
  EXPECT_EQ(renewed->create_revision, created->create_revision);
  EXPECT_NE(store->CurrentEndpoint(), cluster->ClientUrl(hung));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->value, "1");
  ASSERT_TRUE(renewed_again.ok()) << renewed_again.status().ToString();
  auto final = store->Get(key);
  ASSERT_TRUE(final.ok());
  EXPECT_EQ(final->value, "2");
  EXPECT_EQ(final->mod_revision, renewed_again->mod_revision);
}

// A create sent to a hung member is not resent (the key could be deleted and absent again when
// the member wakes up and applies its copy): it keeps the whole request timeout there and
// fails as unknown.
TEST_F(EtcdHungMemberTest, ACreateIsNotResent) {
  auto store = OpenSettled(
      FollowerOptions("create", std::chrono::milliseconds(1500), std::chrono::milliseconds(300)));
  ASSERT_NE(store, nullptr);
  int hung = MemberOf(*cluster, store->CurrentEndpoint());
  cluster->Pause(hung);
  auto create = store->WriteSync(Create("/registry/leases/new", "x"));
  cluster->Resume(hung);
  ASSERT_FALSE(create.ok());
  EXPECT_EQ(create.status().reason(), Reason::kTimeout) << create.status().ToString();
  EXPECT_NE(create.status().message().find("may or may not have been applied"), std::string::npos)
      << create.status().ToString();
}

// A resent update whose compare fails: the key holding exactly the written value is answered as
// applied (with that version); anything else is an unknown outcome, never a Conflict (the
// caller would apply its change again on top of a write that may have been its own).
TEST_F(EtcdHungMemberTest, AResendThatFindsTheKeyChangedTellsAppliedFromUnknown) {
  EtcdStoreOptions options =
      FollowerOptions("resend", std::chrono::seconds(4), std::chrono::milliseconds(500));
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);

  // The member we talk to hangs; another replica (on the other members) writes over the version
  // first; then our write goes to the hung member, is cut off and resent.
  struct Outcome {
    Result<KeyValue> ours = Status::Unavailable("not written");
    int64_t theirs = 0;
  };
  auto race = [&](const std::string& key, const std::string& ours, const std::string& theirs) {
    Outcome out;
    int hung = MemberOf(*cluster, store->CurrentEndpoint());
    auto other = OpenAvoiding(options, hung);
    auto created = store->WriteSync(Create(key, "0"));
    if (other == nullptr || !created.ok()) return out;
    cluster->Pause(hung);
    auto written = other->WriteSync(Update(key, theirs, created->mod_revision));
    if (written.ok()) out.theirs = written->mod_revision;
    out.ours = store->WriteSync(Update(key, ours, created->mod_revision));
    cluster->Resume(hung);
    return out;
  };

  Outcome same = race("/registry/leases/same", "ours", "ours");
  ASSERT_NE(same.theirs, 0);
  ASSERT_TRUE(same.ours.ok()) << same.ours.status().ToString();
  EXPECT_EQ(same.ours->mod_revision, same.theirs);
  EXPECT_EQ(same.ours->value, "ours");

  Outcome changed = race("/registry/leases/changed", "ours", "theirs");
  ASSERT_NE(changed.theirs, 0);
  ASSERT_FALSE(changed.ours.ok());
  EXPECT_EQ(changed.ours.status().reason(), Reason::kTimeout) << changed.ours.status().ToString();
  EXPECT_NE(changed.ours.status().message().find("may or may not have been applied"),
            std::string::npos);
}

// The member a store's watch reads from hangs: its stream stays open and silent (gRPC's
// keepalive would notice after 15 s). No answer to the progress request within
// watch_silence_limit ends the stream, and the watch resumes on another member: a change made
// meanwhile through the others arrives well before the keepalive could have helped.
TEST_F(EtcdHungMemberTest, ASilentWatchStreamResumesOnAnotherMember) {
  EtcdStoreOptions options =
      FollowerOptions("silent", std::chrono::seconds(4), std::chrono::milliseconds(500));
  options.watch_silence_limit = std::chrono::milliseconds(800);
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);
  Collector collector;
  auto watch = store->Watch("/registry/leases/", 0, collector.Callback());
  ASSERT_TRUE(watch.ok());
  auto first = store->WriteSync(Create("/registry/leases/first", "1"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(collector.WaitForRevision(first->mod_revision));
  const std::string watched = store->WatchEndpoint();  // the stream that delivered `first`
  ASSERT_FALSE(watched.empty());
  int hung = MemberOf(*cluster, watched);
  auto other = OpenAvoiding(options, hung);
  ASSERT_NE(other, nullptr);
  cluster->Pause(hung);
  auto changed = other->WriteSync(Update("/registry/leases/first", "2", first->mod_revision));
  // A deadline below the 15 s the keepalive needs, with room for sanitizer builds.
  bool delivered =
      changed.ok() && collector.WaitFor(
                          [&](const std::vector<Event>& e) {
                            return !e.empty() && e.back().kv.mod_revision >= changed->mod_revision;
                          },
                          std::chrono::seconds(8));
  cluster->Resume(hung);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(delivered) << "the watch stayed on the hung member";
  EXPECT_NE(store->WatchEndpoint(), watched);
  std::vector<Event> events = collector.events();
  ASSERT_EQ(events.size(), 2u);  // no gap, no repeat
  EXPECT_EQ(events.back().kv.value, "2");
}

// The store's watch misses events that etcd then compacts (its member hung while others wrote
// and compacted): the resumed watch is refused, and the watch-fed copy, which would otherwise
// serve a value overwritten or deleted in the gap, stops serving and is listed again.
TEST_F(EtcdHungMemberTest, AfterACompactionGapTheCopyIsListedAgainAndNothingStaleIsServed) {
  constexpr auto kInterval = std::chrono::minutes(5);
  constexpr auto kRealWait = std::chrono::seconds(30);
  EtcdStoreOptions options =
      FollowerOptions("gap", std::chrono::seconds(4), std::chrono::milliseconds(500));
  // Long enough for the writes and the compaction below to come first.
  options.watch_silence_limit = std::chrono::seconds(3);
  auto store = OpenSettled(options);
  ASSERT_NE(store, nullptr);
  auto a = store->WriteSync(Create("/registry/leases/a", "a1"));
  auto b = store->WriteSync(Create("/registry/leases/b", "b1"));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(store->Get("/registry/leases/b").ok());  // the copy holds both
  ASSERT_EQ(store->reads().copy_loads, 1u);
  const std::string watched = store->WatchEndpoint();
  int hung = MemberOf(*cluster, watched);
  auto clock = std::make_shared<FakeClock>();
  EtcdStoreOptions compacting = options;
  compacting.compaction_interval = kInterval;
  compacting.clock = clock;
  auto other = OpenAvoiding(compacting, hung);
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(clock->WaitForSleepers(1, kRealWait));
  cluster->Pause(hung);
  auto a2 = other->WriteSync(Update("/registry/leases/a", "a2", a->mod_revision));
  auto deleted =
      other->WriteSync(WriteOp{WriteOp::Kind::kDelete, "/registry/leases/b", "", b->mod_revision});
  auto c = other->WriteSync(Create("/registry/leases/c", "c1"));
  clock->Advance(kInterval);  // notes the revision after these writes
  bool noted = clock->WaitForSleepers(1, kRealWait);
  clock->Advance(kInterval);  // compacts it: the hung member's watcher cannot resume before it
  bool compacted = clock->WaitForSleepers(1, kRealWait);
  // The silent stream ends and the watch resumes on another member, from a compacted revision.
  const auto moved_by = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (store->WatchEndpoint() == watched && std::chrono::steady_clock::now() < moved_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a condition
  }
  const bool moved = store->WatchEndpoint() != watched;
  cluster->Resume(hung);
  ASSERT_TRUE(a2.ok() && deleted.ok() && c.ok());
  ASSERT_TRUE(noted && compacted);
  ASSERT_TRUE(moved) << "the watch stayed on the hung member";
  // The copy serves again once listed: wait (with a deadline) for a read answered from it.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool from_copy = false;
  while (!from_copy && std::chrono::steady_clock::now() < until) {
    const uint64_t before = store->reads().from_cache;
    auto got = store->Get("/registry/leases/a");
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->value, "a2") << "a value overwritten in the gap was served";
    from_copy = store->reads().from_cache > before;
  }
  ASSERT_TRUE(from_copy) << "the copy never served again after the gap";
  EXPECT_EQ(store->reads().copy_loads, 2u);
  EXPECT_TRUE(store->Get("/registry/leases/b").status().IsNotFound())
      << "a value deleted in the gap was served";
  auto listed = store->List("/registry/leases/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<std::string> values;
  for (const KeyValue& kv : listed->items) values.push_back(kv.value);
  EXPECT_EQ(values, (std::vector<std::string>{"a2", "c1"}));
  // What the copy knows without a read follows it too.
  EXPECT_FALSE(store->KnownValue("/registry/leases/b", b->mod_revision));
  EXPECT_FALSE(store->KnownValue("/registry/leases/a", a->mod_revision));
  EXPECT_TRUE(store->KnownValue("/registry/leases/a", a2->mod_revision));
}

// A caller that waits only briefly (a request's `?timeout=`) gets an answer within that time
// although the member it talks to hangs: each member still to try gets an even share of the
// caller's time, not attempt_timeout (here longer than the caller waits at all).
TEST_F(EtcdHungMemberTest, AShortCallerDeadlineIsSharedAmongTheMembers) {
  auto store =
      OpenSettled(FollowerOptions("share", std::chrono::seconds(6), std::chrono::seconds(3)));
  ASSERT_NE(store, nullptr);
  const std::string key = "/registry/leases/share";
  auto created = store->WriteSync(Create(key, "0"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  int hung = MemberOf(*cluster, store->CurrentEndpoint());
  cluster->Pause(hung);
  auto start = std::chrono::steady_clock::now();
  WriteOp update = Update(key, "1", created->mod_revision);
  update.deadline = start + std::chrono::milliseconds(1200);
  auto renewed = store->WriteSync(update);
  auto write_took = std::chrono::steady_clock::now() - start;
  // The store moved away from the hung member: hang it again for the read.
  int hung_again = MemberOf(*cluster, store->CurrentEndpoint());
  if (hung_again != hung) {
    cluster->Resume(hung);
    cluster->Pause(hung_again);
  }
  auto read_start = std::chrono::steady_clock::now();
  auto got = store->GetBefore(key, read_start + std::chrono::milliseconds(1200));
  auto read_took = std::chrono::steady_clock::now() - read_start;
  cluster->Resume(hung_again);
  cluster->Resume(hung);
  ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
  // Half of 1.2 s on the hung member, then the other: well before the 3 s attempt_timeout.
  EXPECT_LT(write_took, std::chrono::seconds(2));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->value, "1");
  EXPECT_LT(read_took, std::chrono::seconds(2));
}

// A read without a deadline of its own takes at most request_timeout, all its steps together:
// with every member it talks to hung, the revision request for the copy and the read from etcd
// share one budget (each started its own, so a Get took twice as long, and a create's namespace
// read and write up to 23 s with the default 5 s).
TEST_F(EtcdHungMemberTest, AReadsStepsShareOneRequestTimeout) {
  EtcdStoreOptions options =
      FollowerOptions("budget", std::chrono::milliseconds(1500), std::chrono::milliseconds(300));
  auto store = OpenSettled(options);
  ASSERT_NE(store, nullptr);
  const std::string key = "/registry/leases/budget";
  ASSERT_TRUE(store->WriteSync(Create(key, "0")).ok());
  std::vector<int> hung;
  for (const std::string& url : options.endpoints) hung.push_back(MemberOf(*cluster, url));
  for (int member : hung) cluster->Pause(member);
  auto start = std::chrono::steady_clock::now();
  auto got = store->Get(key);
  auto get_took = std::chrono::steady_clock::now() - start;
  start = std::chrono::steady_clock::now();
  auto listed = store->List("/registry/leases/", ListOptions{});
  auto list_took = std::chrono::steady_clock::now() - start;
  for (int member : hung) cluster->Resume(member);
  EXPECT_FALSE(got.ok());
  EXPECT_FALSE(listed.ok());
  EXPECT_LT(get_took, std::chrono::milliseconds(2200));
  EXPECT_LT(list_took, std::chrono::milliseconds(2200));
}

// Collects the answers of asynchronous writes, each with the time it came.
struct Answers {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Status> statuses;
  std::vector<std::chrono::steady_clock::time_point> times;
  WriteCallback Callback() {
    return [this](Result<KeyValue> r) {
      std::lock_guard lock(mu);
      statuses.push_back(r.status());
      times.push_back(std::chrono::steady_clock::now());
      cv.notify_all();
    };
  }
  bool WaitFor(size_t n, std::chrono::seconds timeout) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [&] { return statuses.size() >= n; });
  }
};

// With one write slot: writes queued behind a member that is down are each answered by their
// deadline, not applied (handing the slot on is a loop: 200 waiting writes do not recurse); at
// Close, writes still waiting for a slot are answered at once as not applied, and the one sent
// to a hung member by its deadline with an unknown outcome.
TEST(EtcdWriteQueueTest, QueuedWritesAreAnsweredByTheirDeadlineAndAtClose) {
  auto cluster = testing::EtcdTestCluster::Start({});
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  EtcdStoreOptions options;
  options.endpoints = (*cluster)->ClientUrls();
  options.prefix = UniquePrefix("queue");
  options.max_writes_in_flight = 1;
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->WriteSync(Create("/registry/k/first", "1")).ok());

  (*cluster)->Kill(0);
  constexpr size_t kDown = 200;
  Answers down;
  const auto sent = std::chrono::steady_clock::now();
  for (size_t i = 0; i < kDown; ++i) {
    WriteOp op = Create("/registry/k/down-" + std::to_string(i), "v");
    op.deadline = sent + std::chrono::milliseconds(1500);
    store->Write(std::move(op), down.Callback());
  }
  ASSERT_TRUE(down.WaitFor(kDown, std::chrono::seconds(20)));
  for (size_t i = 0; i < kDown; ++i) {
    EXPECT_FALSE(down.statuses[i].ok());
    EXPECT_LT(down.times[i] - sent, std::chrono::seconds(5)) << "answered long after its deadline";
  }
  ASSERT_TRUE((*cluster)->Restart(0).ok());
  auto after = store->WriteSync(Create("/registry/k/after", "1"));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  auto listed = store->List("/registry/k/");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->items.size(), 2u) << "a write answered as failed was applied";

  (*cluster)->Pause(0);
  constexpr size_t kHung = 20;
  Answers hung;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (size_t i = 0; i < kHung; ++i) {
    WriteOp op = Create("/registry/k/hung-" + std::to_string(i), "v");
    op.deadline = deadline;
    store->Write(std::move(op), hung.Callback());
  }
  const auto close_start = std::chrono::steady_clock::now();
  store->Close();
  const auto closed = std::chrono::steady_clock::now();
  (*cluster)->Resume(0);
  ASSERT_TRUE(hung.WaitFor(kHung, std::chrono::seconds(1))) << "Close left writes unanswered";
  EXPECT_LT(closed - close_start, std::chrono::seconds(8));
  size_t not_applied = 0, unknown = 0;
  for (const Status& s : hung.statuses) {
    ASSERT_FALSE(s.ok());
    if (s.message().find("not applied") != std::string::npos) ++not_applied;
    if (s.message().find("may or may not") != std::string::npos) ++unknown;
  }
  EXPECT_EQ(not_applied, kHung - 1);  // waited for the one slot
  EXPECT_EQ(unknown, 1u);             // sent to the hung member
}

// A write sent to a member that then answers nothing has an unknown outcome: it fails with
// Timeout saying so, never with a guessed result. After the member restarts (same data), the
// store reconnects and its watch resumes after the last delivered revision.
TEST(EtcdReconnectTest, UnknownOutcomeIsReportedAndTheWatchResumesAfterARestart) {
  auto cluster = testing::EtcdTestCluster::Start({});
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  EtcdStoreOptions options;
  options.endpoints = (*cluster)->ClientUrls();
  options.prefix = UniquePrefix("reconnect");
  options.request_timeout = std::chrono::seconds(2);  // the write to the paused member waits it out
  auto store = MustOpen(options);
  ASSERT_NE(store, nullptr);
  Collector collector;
  auto watch = store->Watch("/registry/", 0, collector.Callback());
  ASSERT_TRUE(watch.ok());
  auto first = store->WriteSync(Create("/registry/k/first", "1"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();

  (*cluster)->Pause(0);
  auto unknown = store->WriteSync(Create("/registry/k/unknown", "2"));
  (*cluster)->Resume(0);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().reason(), Reason::kTimeout) << unknown.status().ToString();
  EXPECT_NE(unknown.status().message().find("may or may not have been applied"), std::string::npos);

  (*cluster)->Kill(0);
  // Once the store saw the connection go (a read fails over nowhere), a write is never sent.
  EXPECT_EQ(store->Get("/registry/k/first").status().reason(), Reason::kServiceUnavailable);
  auto down = store->WriteSync(Create("/registry/k/down", "3"));
  EXPECT_EQ(down.status().reason(), Reason::kServiceUnavailable) << down.status().ToString();
  EXPECT_NE(down.status().message().find("not applied"), std::string::npos);
  ASSERT_TRUE((*cluster)->Restart(0).ok()) << (*cluster)->LogTail(0);

  Result<KeyValue> after = Status::Unavailable("not tried");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!after.ok() && std::chrono::steady_clock::now() < deadline) {
    after = store->WriteSync(Create("/registry/k/after", "4"));
  }
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_TRUE(collector.WaitForRevision(after->mod_revision));
  std::vector<Event> events = collector.events();
  // first, possibly "unknown" (if etcd applied it once it woke up), then after: no gap, no repeat.
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.front().kv.key, "/registry/k/first");
  EXPECT_EQ(events.back().kv.key, "/registry/k/after");
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_LT(events[i - 1].kv.mod_revision, events[i].kv.mod_revision);
  }
  bool applied = store->Get("/registry/k/unknown").ok();
  EXPECT_EQ(events.size(), applied ? 3u : 2u);
}

}  // namespace
}  // namespace tenure::store
