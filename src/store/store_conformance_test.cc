// One Store contract suite (store.h), run against every backend: SqliteStore and EtcdStore (a
// real etcd process started by the test; the suite fails, never skips, when etcd is missing).
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "store/etcd_store.h"
#include "store/sqlite_store.h"
#include "store/store_test_util.h"
#include "store/testing/etcd_test_cluster.h"

namespace tenure::store {
namespace {

using test_util::Collector;
using test_util::Create;
using test_util::Delete;
using test_util::TempDir;
using test_util::Update;

// A backend under test: opens fresh, empty stores and can make old revisions unwatchable.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual Result<std::unique_ptr<Store>> Open() = 0;
  // Afterwards a watch from `revision` fails with Gone.
  virtual void ForgetHistoryThrough(Store& store, int64_t revision) = 0;
};

class SqliteBackend : public Backend {
 public:
  static constexpr size_t kHistory = 16;

  Result<std::unique_ptr<Store>> Open() override {
    if (!dir_.ok()) return Status::Internal("no temp dir");
    SqliteStoreOptions options;
    options.path = dir_.File("store" + std::to_string(opened_++) + ".db");
    options.watch_history_capacity = kHistory;
    auto store = SqliteStore::Open(options);
    if (!store.ok()) return store.status();
    return std::unique_ptr<Store>(std::move(*store));
  }

  // SQLite keeps the last kHistory events: push `revision` out of them.
  void ForgetHistoryThrough(Store& store, int64_t revision) override {
    int64_t oldest = static_cast<SqliteStore&>(store).OldestWatchableRevision();
    for (int i = 0; oldest <= revision; ++i) {
      ASSERT_TRUE(store.WriteSync(Create("/registry/filler/" + std::to_string(i), "x")).ok());
      oldest = static_cast<SqliteStore&>(store).OldestWatchableRevision();
    }
  }

 private:
  TempDir dir_;
  int opened_ = 0;
};

// One etcd member for the whole suite; each store gets its own key prefix.
testing::EtcdTestCluster* SharedEtcd(Status* error) {
  static Result<std::unique_ptr<testing::EtcdTestCluster>> cluster =
      testing::EtcdTestCluster::Start({});
  if (!cluster.ok()) {
    *error = cluster.status();
    return nullptr;
  }
  return cluster->get();
}

class EtcdBackend : public Backend {
 public:
  Result<std::unique_ptr<Store>> Open() override {
    static std::atomic<int> next{0};
    Status error;
    testing::EtcdTestCluster* etcd = SharedEtcd(&error);
    if (etcd == nullptr) return Status(error.reason(), "cannot start etcd: " + error.message());
    EtcdStoreOptions options;
    options.endpoints = etcd->ClientUrls();
    // The contract, not the timing: under ThreadSanitizer the 1 MiB object test's writes took
    // 14.5 s alone and over 30 s in a full fresh-clone run (release: 0.9 s).
    options.request_timeout = std::chrono::seconds(120);
    options.prefix = "/conformance-" + std::to_string(getpid()) + "-" + std::to_string(next++);
    auto store = EtcdStore::Open(options);
    if (!store.ok()) return store.status();
    return std::unique_ptr<Store>(std::move(*store));
  }

  void ForgetHistoryThrough(Store& store, int64_t revision) override {
    // etcd's compaction at R removes the revisions before R.
    ASSERT_TRUE(static_cast<EtcdStore&>(store).Compact(revision + 1).ok());
  }
};

struct BackendParam {
  std::string name;
  std::function<std::unique_ptr<Backend>()> make;
};

void PrintTo(const BackendParam& param, std::ostream* os) { *os << param.name; }

class StoreConformanceTest : public ::testing::TestWithParam<BackendParam> {
 protected:
  void SetUp() override {
    backend_ = GetParam().make();
    auto store = backend_->Open();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  void TearDown() override {
    store_.reset();
    backend_.reset();
  }

  KeyValue MustWrite(WriteOp op) {
    auto r = store_->WriteSync(std::move(op));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : KeyValue{};
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreConformanceTest, RevisionsIncreaseWithEveryWrite) {
  int64_t start = store_->CurrentRevision();
  KeyValue a = MustWrite(Create("/registry/things/a", "1"));
  KeyValue b = MustWrite(Create("/registry/things/b", "2"));
  KeyValue a2 = MustWrite(Update("/registry/things/a", "3"));
  KeyValue gone = MustWrite(Delete("/registry/things/b"));
  EXPECT_GT(a.mod_revision, start);
  EXPECT_GT(b.mod_revision, a.mod_revision);
  EXPECT_GT(a2.mod_revision, b.mod_revision);
  EXPECT_GT(gone.mod_revision, a2.mod_revision);
  EXPECT_EQ(store_->CurrentRevision(), gone.mod_revision);
}

TEST_P(StoreConformanceTest, CreateGetAndKeyValueFields) {
  KeyValue created = MustWrite(Create("/registry/things/a", "v1"));
  EXPECT_EQ(created.key, "/registry/things/a");
  EXPECT_EQ(created.value, "v1");
  EXPECT_EQ(created.create_revision, created.mod_revision);
  auto got = store_->Get("/registry/things/a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->value, "v1");
  EXPECT_EQ(got->mod_revision, created.mod_revision);
  EXPECT_EQ(got->create_revision, created.create_revision);

  KeyValue updated = MustWrite(Update("/registry/things/a", "v2", created.mod_revision));
  EXPECT_EQ(updated.create_revision, created.create_revision);
  EXPECT_GT(updated.mod_revision, created.mod_revision);
  EXPECT_EQ(store_->Get("/registry/things/a")->value, "v2");
}

// The largest object kube-apiserver stores (a ConfigMap with 1 MiB of data, plus its metadata).
TEST_P(StoreConformanceTest, ObjectsOfOneMebibyteAndMoreAreStored) {
  std::string large(1024 * 1024 + 4096, 'x');
  KeyValue created = MustWrite(Create("/registry/configmaps/ns/large", large));
  auto got = store_->Get("/registry/configmaps/ns/large");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->value, large);
  large.back() = 'y';
  KeyValue updated =
      MustWrite(Update("/registry/configmaps/ns/large", large, created.mod_revision));
  EXPECT_EQ(store_->Get("/registry/configmaps/ns/large")->value, large);
  EXPECT_GT(updated.mod_revision, created.mod_revision);
}

TEST_P(StoreConformanceTest, ErrorsAndFailedWritesConsumeNoRevision) {
  MustWrite(Create("/registry/things/a", "v1"));
  int64_t before = store_->CurrentRevision();
  auto dup = store_->WriteSync(Create("/registry/things/a", "again"));
  EXPECT_TRUE(dup.status().IsAlreadyExists()) << dup.status().ToString();
  auto upd = store_->WriteSync(Update("/registry/things/missing", "x"));
  EXPECT_TRUE(upd.status().IsNotFound()) << upd.status().ToString();
  auto upd_cas = store_->WriteSync(Update("/registry/things/missing", "x", 5));
  EXPECT_TRUE(upd_cas.status().IsNotFound()) << upd_cas.status().ToString();
  auto del = store_->WriteSync(Delete("/registry/things/missing"));
  EXPECT_TRUE(del.status().IsNotFound()) << del.status().ToString();
  auto get = store_->Get("/registry/things/missing");
  EXPECT_TRUE(get.status().IsNotFound()) << get.status().ToString();
  auto empty = store_->WriteSync(Create("", "x"));
  EXPECT_EQ(empty.status().reason(), Reason::kBadRequest);
  EXPECT_EQ(store_->CurrentRevision(), before);
  EXPECT_EQ(store_->Get("/registry/things/a")->value, "v1");
}

TEST_P(StoreConformanceTest, CompareAndSwapConflicts) {
  KeyValue v1 = MustWrite(Create("/registry/things/a", "v1"));
  KeyValue v2 = MustWrite(Update("/registry/things/a", "v2", v1.mod_revision));
  auto stale = store_->WriteSync(Update("/registry/things/a", "v3", v1.mod_revision));
  EXPECT_TRUE(stale.status().IsConflict()) << stale.status().ToString();
  auto stale_delete = store_->WriteSync(Delete("/registry/things/a", v1.mod_revision));
  EXPECT_TRUE(stale_delete.status().IsConflict()) << stale_delete.status().ToString();
  EXPECT_EQ(store_->Get("/registry/things/a")->value, "v2");
  KeyValue deleted = MustWrite(Delete("/registry/things/a", v2.mod_revision));
  EXPECT_EQ(deleted.value, "v2");
  EXPECT_TRUE(store_->Get("/registry/things/a").status().IsNotFound());
}

TEST_P(StoreConformanceTest, UnconditionalUpdateAndDelete) {
  MustWrite(Create("/registry/things/a", "v1"));
  MustWrite(Update("/registry/things/a", "v2"));
  KeyValue deleted = MustWrite(Delete("/registry/things/a"));
  EXPECT_EQ(deleted.value, "v2");
  EXPECT_EQ(deleted.mod_revision, store_->CurrentRevision());
  // A deleted key can be created again, with a new create_revision.
  KeyValue again = MustWrite(Create("/registry/things/a", "v3"));
  EXPECT_GT(again.create_revision, deleted.mod_revision);
}

TEST_P(StoreConformanceTest, ListIsOrderedByKeyAndCarriesItsRevision) {
  MustWrite(Create("/registry/things/ns1/b", "b"));
  MustWrite(Create("/registry/things/ns1/a", "a"));
  MustWrite(Create("/registry/things/ns2/c", "c"));
  MustWrite(Create("/registry/other/x", "x"));
  auto listed = store_->List("/registry/things/ns1/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->items.size(), 2u);
  EXPECT_EQ(listed->items[0].key, "/registry/things/ns1/a");
  EXPECT_EQ(listed->items[1].key, "/registry/things/ns1/b");
  EXPECT_EQ(listed->revision, store_->CurrentRevision());
  auto all = store_->List("/registry/things/");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 3u);
  auto none = store_->List("/registry/nothing/");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->items.empty());
  EXPECT_EQ(none->revision, store_->CurrentRevision());
}

std::vector<std::string> KeysOf(const ListResult& list) {
  std::vector<std::string> keys;
  for (const KeyValue& kv : list.items) keys.push_back(kv.key);
  return keys;
}

TEST_P(StoreConformanceTest, ListPagesCountTheRestAndResumeAtTheFirstPagesRevision) {
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    MustWrite(Create(std::string("/registry/things/ns/") + name, name));
  }
  MustWrite(Create("/registry/things/other/z", "z"));
  auto first = store_->List("/registry/things/ns/", {.limit = 2});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(KeysOf(*first),
            (std::vector<std::string>{"/registry/things/ns/a", "/registry/things/ns/b"}));
  EXPECT_EQ(first->remaining, 3);
  const int64_t at = first->revision;
  EXPECT_EQ(at, store_->CurrentRevision());

  // Changes after the first page are not seen by the next ones.
  KeyValue c_before = *store_->Get("/registry/things/ns/c");
  MustWrite(Update("/registry/things/ns/c", "c2"));
  MustWrite(Delete("/registry/things/ns/d"));
  MustWrite(Create("/registry/things/ns/bb", "bb"));
  MustWrite(Create("/registry/things/ns/f", "f"));
  MustWrite(Update("/registry/things/ns/c", "c3"));

  auto second = store_->List(
      "/registry/things/ns/",
      {.revision = at, .start_key = std::string("/registry/things/ns/b") + '\0', .limit = 2});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->revision, at);
  ASSERT_EQ(KeysOf(*second),
            (std::vector<std::string>{"/registry/things/ns/c", "/registry/things/ns/d"}));
  EXPECT_EQ(second->items[0].value, "c");
  EXPECT_EQ(second->items[0].mod_revision, c_before.mod_revision);
  EXPECT_EQ(second->items[0].create_revision, c_before.create_revision);
  EXPECT_EQ(second->remaining, 1);
  auto last = store_->List("/registry/things/ns/",
                           {.revision = at, .start_key = "/registry/things/ns/d\x01", .limit = 2});
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(KeysOf(*last), (std::vector<std::string>{"/registry/things/ns/e"}));
  EXPECT_EQ(last->remaining, 0);

  auto now = store_->List("/registry/things/ns/");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(KeysOf(*now),
            (std::vector<std::string>{"/registry/things/ns/a", "/registry/things/ns/b",
                                      "/registry/things/ns/bb", "/registry/things/ns/c",
                                      "/registry/things/ns/e", "/registry/things/ns/f"}));
  EXPECT_EQ(now->items[3].value, "c3");
  EXPECT_EQ(now->remaining, 0);
}

TEST_P(StoreConformanceTest, ListAtAnEarlierRevisionSeesThatState) {
  MustWrite(Create("/registry/things/kept", "1"));
  KeyValue changed = MustWrite(Create("/registry/things/changed", "old"));
  KeyValue deleted = MustWrite(Create("/registry/things/deleted", "d"));
  const int64_t at = store_->CurrentRevision();
  MustWrite(Update("/registry/things/changed", "new"));
  MustWrite(Delete("/registry/things/deleted"));
  MustWrite(Create("/registry/things/added", "a"));
  MustWrite(Create("/registry/things/deleted", "again"));
  auto then = store_->List("/registry/things/", {.revision = at});
  ASSERT_TRUE(then.ok()) << then.status().ToString();
  EXPECT_EQ(then->revision, at);
  ASSERT_EQ(KeysOf(*then),
            (std::vector<std::string>{"/registry/things/changed", "/registry/things/deleted",
                                      "/registry/things/kept"}));
  EXPECT_EQ(then->items[0].value, "old");
  EXPECT_EQ(then->items[0].mod_revision, changed.mod_revision);
  EXPECT_EQ(then->items[1].value, "d");
  EXPECT_EQ(then->items[1].create_revision, deleted.create_revision);
  // Each revision in between, too: right after the update, before the delete.
  auto between = store_->List("/registry/things/", {.revision = at + 1});
  ASSERT_TRUE(between.ok());
  EXPECT_EQ(between->items[0].value, "new");
  EXPECT_EQ(between->items.size(), 3u);
}

TEST_P(StoreConformanceTest, ListAtAForgottenOrFutureRevisionFails) {
  int64_t from = MustWrite(Create("/registry/things/a", "1")).mod_revision;
  MustWrite(Update("/registry/things/a", "2"));
  backend_->ForgetHistoryThrough(*store_, from);
  auto old = store_->List("/registry/things/", {.revision = from});
  EXPECT_TRUE(old.status().IsGone()) << old.status().ToString();
  auto future = store_->List("/registry/things/", {.revision = store_->CurrentRevision() + 5});
  EXPECT_EQ(future.status().reason(), Reason::kBadRequest) << future.status().ToString();
  auto current = store_->List("/registry/things/", {.revision = store_->CurrentRevision()});
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_EQ(current->items.at(0).value, "2");
}

TEST_P(StoreConformanceTest, WatchReplaysHistoryThenLiveInOrderWithoutGapsOrDuplicates) {
  // A revision from an earlier write (from 0 would mean "from now").
  int64_t from = MustWrite(Create("/registry/other/seed", "x")).mod_revision;
  std::vector<int64_t> written;
  written.push_back(MustWrite(Create("/registry/things/a", "1")).mod_revision);
  written.push_back(MustWrite(Create("/registry/other/b", "x")).mod_revision);  // filtered out
  written.push_back(MustWrite(Update("/registry/things/a", "2")).mod_revision);
  written.push_back(MustWrite(Create("/registry/things/c", "3")).mod_revision);
  written.push_back(MustWrite(Delete("/registry/things/a")).mod_revision);

  Collector collector;
  auto watch = store_->Watch("/registry/things/", from, collector.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  ASSERT_TRUE(collector.WaitForCount(4));
  // Live events follow the replayed ones.
  written.push_back(MustWrite(Update("/registry/things/c", "4")).mod_revision);
  written.push_back(MustWrite(Create("/registry/things/d", "5")).mod_revision);
  ASSERT_TRUE(collector.WaitForRevision(written.back()));

  std::vector<Event> events = collector.events();
  ASSERT_EQ(events.size(), 6u);
  std::vector<int64_t> expected = {written[0], written[2], written[3],
                                   written[4], written[5], written[6]};
  EXPECT_EQ(collector.revisions(), expected);
  EXPECT_EQ(events[0].type, Event::Type::kCreated);
  EXPECT_EQ(events[0].previous, nullptr);
  EXPECT_EQ(events[1].type, Event::Type::kUpdated);
  EXPECT_EQ(events[1].kv.value, "2");
  // An update carries what it replaced, replayed as live (a selector's watch needs it).
  ASSERT_NE(events[1].previous, nullptr);
  EXPECT_EQ(events[1].previous->key, "/registry/things/a");
  EXPECT_EQ(events[1].previous->value, "1");
  EXPECT_EQ(events[1].previous->mod_revision, written[0]);
  EXPECT_EQ(events[2].type, Event::Type::kCreated);
  EXPECT_EQ(events[3].type, Event::Type::kDeleted);
  EXPECT_EQ(events[3].kv.key, "/registry/things/a");
  EXPECT_EQ(events[3].kv.value, "2");  // a delete carries the last value
  EXPECT_EQ(events[3].kv.create_revision, written[0]);
  EXPECT_EQ(events[4].type, Event::Type::kUpdated);
  ASSERT_NE(events[4].previous, nullptr);
  EXPECT_EQ(events[4].previous->value, "3");
  EXPECT_EQ(events[4].previous->mod_revision, written[3]);
  EXPECT_EQ(events[5].kv.value, "5");
}

TEST_P(StoreConformanceTest, WatchFromNowSeesOnlyLaterWrites) {
  MustWrite(Create("/registry/things/old", "1"));
  Collector collector;
  auto watch = store_->Watch("/registry/things/", 0, collector.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  KeyValue later = MustWrite(Create("/registry/things/new", "2"));
  ASSERT_TRUE(collector.WaitForRevision(later.mod_revision));
  std::vector<Event> events = collector.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kv.key, "/registry/things/new");
}

TEST_P(StoreConformanceTest, WatchFromForgottenRevisionIsGone) {
  int64_t from = MustWrite(Create("/registry/things/a", "1")).mod_revision;
  MustWrite(Update("/registry/things/a", "2"));
  backend_->ForgetHistoryThrough(*store_, from);
  Collector collector;
  auto watch = store_->Watch("/registry/things/", from, collector.Callback());
  ASSERT_FALSE(watch.ok());
  EXPECT_TRUE(watch.status().IsGone()) << watch.status().ToString();
  EXPECT_NE(watch.status().message().find("too old resource version"), std::string::npos);
  // The current revision stays watchable.
  auto fresh = store_->Watch("/registry/things/", store_->CurrentRevision(), collector.Callback());
  EXPECT_TRUE(fresh.ok()) << fresh.status().ToString();
  auto negative = store_->Watch("/registry/things/", -1, collector.Callback());
  EXPECT_EQ(negative.status().reason(), Reason::kBadRequest);
}

TEST_P(StoreConformanceTest, DestroyedWatchGetsNoMoreEvents) {
  Collector kept;
  Collector dropped;
  auto keep = store_->Watch("/registry/things/", 0, kept.Callback());
  auto drop = store_->Watch("/registry/things/", 0, dropped.Callback());
  ASSERT_TRUE(keep.ok() && drop.ok());
  KeyValue first = MustWrite(Create("/registry/things/a", "1"));
  ASSERT_TRUE(dropped.WaitForRevision(first.mod_revision));
  drop->reset();
  KeyValue second = MustWrite(Create("/registry/things/b", "2"));
  ASSERT_TRUE(kept.WaitForRevision(second.mod_revision));
  EXPECT_EQ(dropped.events().size(), 1u);
}

// Concurrent compare-and-swap increments of one counter: every increment lands exactly once and
// a watch sees every write in revision order.
TEST_P(StoreConformanceTest, ConcurrentWritersSerializeThroughCompareAndSwap) {
  constexpr int kThreads = 4;
  constexpr int kIncrements = 25;
  const std::string key = "/registry/counters/c";
  KeyValue created = MustWrite(Create(key, "0"));
  Collector collector;
  auto watch = store_->Watch("/registry/counters/", created.mod_revision, collector.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  std::atomic<int> conflicts{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements;) {
        auto current = store_->Get(key);
        if (!current.ok()) {
          failures++;
          return;
        }
        std::string next = std::to_string(std::stoi(current->value) + 1);
        auto r = store_->WriteSync(Update(key, next, current->mod_revision));
        if (r.ok()) {
          ++i;
        } else if (r.status().IsConflict()) {
          conflicts++;
        } else {
          failures++;
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);
  auto final_value = store_->Get(key);
  ASSERT_TRUE(final_value.ok());
  EXPECT_EQ(final_value->value, std::to_string(kThreads * kIncrements));
  ASSERT_TRUE(collector.WaitForRevision(final_value->mod_revision));
  std::vector<Event> events = collector.events();
  ASSERT_EQ(events.size(), static_cast<size_t>(kThreads * kIncrements));
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].kv.value, std::to_string(i + 1));
    if (i > 0) {
      EXPECT_GT(events[i].kv.mod_revision, events[i - 1].kv.mod_revision);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, StoreConformanceTest,
    ::testing::Values(BackendParam{"sqlite", [] { return std::make_unique<SqliteBackend>(); }},
                      BackendParam{"etcd", [] { return std::make_unique<EtcdBackend>(); }}),
    [](const ::testing::TestParamInfo<BackendParam>& info) { return info.param.name; });

}  // namespace
}  // namespace tenure::store
