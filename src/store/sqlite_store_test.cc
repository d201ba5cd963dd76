// Tests of SqliteStore: CRUD, group commit, large objects, reopen, failed commits, watches.
#include "store/sqlite_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/file_mode_test_util.h"
#include "store/store_test_util.h"
#include "tenure/fake_clock.h"

namespace tenure::store {
namespace {

using test_util::Collector;
using test_util::Create;
using test_util::Delete;
using test_util::kDeadline;
using test_util::TempDir;
using test_util::Update;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    Reopen();
  }

  void Reopen(size_t history = 100000) {
    SqliteStoreOptions options;
    options.watch_history_capacity = history;
    Reopen(options);
  }
  void Reopen(SqliteStoreOptions options) {
    store_.reset();
    options.path = dir_.File("store.db");
    auto opened = SqliteStore::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }

  TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
};

// Counts outstanding asynchronous writes and waits for them.
class Pending {
 public:
  WriteCallback Add(std::vector<Result<KeyValue>>* results = nullptr, size_t index = 0) {
    std::lock_guard lock(mu_);
    ++outstanding_;
    return [this, results, index](Result<KeyValue> r) {
      std::lock_guard lock(mu_);
      if (results != nullptr) (*results)[index] = std::move(r);
      --outstanding_;
      cv_.notify_all();
    };
  }
  bool Wait() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kDeadline, [&] { return outstanding_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int outstanding_ = 0;
};

TEST_F(SqliteStoreTest, CreateGetUpdateDelete) {
  EXPECT_EQ(store_->CurrentRevision(), 0);
  EXPECT_TRUE(store_->Get("/k").status().IsNotFound());

  auto created = store_->WriteSync(Create("/k", "one"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->key, "/k");
  EXPECT_EQ(created->value, "one");
  EXPECT_EQ(created->create_revision, 1);
  EXPECT_EQ(created->mod_revision, 1);
  EXPECT_EQ(store_->CurrentRevision(), 1);

  auto got = store_->Get("/k");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "one");
  EXPECT_EQ(got->mod_revision, 1);

  auto again = store_->WriteSync(Create("/k", "two"));
  EXPECT_EQ(again.status().reason(), Reason::kAlreadyExists);
  EXPECT_EQ(store_->CurrentRevision(), 1) << "a failed write consumes no revision";

  auto updated = store_->WriteSync(Update("/k", "two", 1));
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->create_revision, 1);
  EXPECT_EQ(updated->mod_revision, 2);

  auto stale = store_->WriteSync(Update("/k", "three", 1));
  EXPECT_EQ(stale.status().reason(), Reason::kConflict);
  auto stale_delete = store_->WriteSync(Delete("/k", 1));
  EXPECT_EQ(stale_delete.status().reason(), Reason::kConflict);
  EXPECT_EQ(store_->CurrentRevision(), 2);

  auto unconditional = store_->WriteSync(Update("/k", "three"));
  ASSERT_TRUE(unconditional.ok());
  EXPECT_EQ(unconditional->mod_revision, 3);

  auto empty_value = store_->WriteSync(Update("/k", "", 3));
  ASSERT_TRUE(empty_value.ok());
  EXPECT_EQ(store_->Get("/k")->value, "");
  ASSERT_TRUE(store_->WriteSync(Update("/k", "three", 4)).ok());

  auto deleted = store_->WriteSync(Delete("/k", 5));
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->value, "three");
  EXPECT_EQ(deleted->create_revision, 1);
  EXPECT_EQ(deleted->mod_revision, 6);
  EXPECT_TRUE(store_->Get("/k").status().IsNotFound());

  EXPECT_EQ(store_->WriteSync(Update("/k", "x")).status().reason(), Reason::kNotFound);
  EXPECT_EQ(store_->WriteSync(Delete("/k")).status().reason(), Reason::kNotFound);
  EXPECT_EQ(store_->WriteSync(Create("", "x")).status().reason(), Reason::kBadRequest);
  EXPECT_EQ(store_->CurrentRevision(), 6);

  auto recreated = store_->WriteSync(Create("/k", "new"));
  ASSERT_TRUE(recreated.ok());
  EXPECT_EQ(recreated->create_revision, 7);
}

TEST_F(SqliteStoreTest, ListByPrefixInKeyOrder) {
  for (const char* key : {"/b/2", "/a/1", "/b/1", "/c", "/b/3", "/bb"}) {
    ASSERT_TRUE(store_->WriteSync(Create(key, std::string("v") + key)).ok());
  }
  auto list = store_->List("/b/");
  ASSERT_TRUE(list.ok());
  std::vector<std::string> keys;
  for (const KeyValue& kv : list->items) keys.push_back(kv.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"/b/1", "/b/2", "/b/3"}));
  EXPECT_EQ(list->items[0].value, "v/b/1");
  EXPECT_EQ(list->revision, 6);
  EXPECT_EQ(store_->List("")->items.size(), 6u);
  EXPECT_TRUE(store_->List("/zzz")->items.empty());
}

TEST_F(SqliteStoreTest, BinaryKeysAndValuesRoundTrip) {
  std::string value("a\0b\xff", 4);
  std::string key("/bin/\x01\x7f", 7);
  ASSERT_TRUE(store_->WriteSync(Create(key, value)).ok());
  Reopen();
  auto got = store_->Get(key);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, value);
}

TEST_F(SqliteStoreTest, BatchDecidesWritesInOrder) {
  // Queued from a write callback (writer thread), these are all taken as one batch.
  std::vector<Result<KeyValue>> results(5, Status::Internal("not run"));
  Pending pending;
  uint64_t commits_before = store_->CommittedTransactionsForTest();
  auto first = pending.Add();
  store_->Write(Create("/seed", "s"), [&, first](Result<KeyValue> r) {
    store_->Write(Create("/x", "1"), pending.Add(&results, 0));
    store_->Write(Create("/x", "dup"), pending.Add(&results, 1));
    store_->Write(Update("/x", "2", 2), pending.Add(&results, 2));  // /x is created at 2
    store_->Write(Update("/x", "3", 2), pending.Add(&results, 3));  // now stale
    store_->Write(Delete("/x", 3), pending.Add(&results, 4));
    first(std::move(r));
  });
  ASSERT_TRUE(pending.Wait());
  ASSERT_TRUE(results[0].ok());
  EXPECT_EQ(results[0]->mod_revision, 2);
  EXPECT_TRUE(results[1].status().IsAlreadyExists());
  ASSERT_TRUE(results[2].ok());
  EXPECT_EQ(results[2]->mod_revision, 3);
  EXPECT_TRUE(results[3].status().IsConflict());
  ASSERT_TRUE(results[4].ok());
  EXPECT_EQ(results[4]->mod_revision, 4);
  EXPECT_EQ(results[4]->value, "2");
  EXPECT_EQ(store_->CommittedTransactionsForTest() - commits_before, 2u);
  EXPECT_TRUE(store_->Get("/x").status().IsNotFound());
  EXPECT_EQ(store_->CurrentRevision(), 4);
}

// A write whose caller stopped waiting while it was queued (an overloaded writer) is answered
// Timeout and not applied; the writes around it in the batch are.
TEST_F(SqliteStoreTest, AWriteQueuedPastItsDeadlineIsNotApplied) {
  std::vector<Result<KeyValue>> results(3, Status::Internal("not run"));
  Pending pending;
  auto first = pending.Add();
  store_->Write(Create("/seed", "s"), [&, first](Result<KeyValue> r) {
    // Queued behind this batch: taken together as the next one.
    store_->Write(Create("/a", "1"), pending.Add(&results, 0));
    WriteOp late = Create("/late", "1");
    late.deadline = std::chrono::steady_clock::now();  // passed by the time it is committed
    store_->Write(std::move(late), pending.Add(&results, 1));
    WriteOp in_time = Create("/b", "1");
    in_time.deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    store_->Write(std::move(in_time), pending.Add(&results, 2));
    first(std::move(r));
  });
  ASSERT_TRUE(pending.Wait());
  EXPECT_TRUE(results[0].ok()) << results[0].status().ToString();
  EXPECT_EQ(results[1].status().reason(), Reason::kTimeout) << results[1].status().ToString();
  EXPECT_NE(results[1].status().message().find("not applied"), std::string::npos);
  EXPECT_TRUE(results[2].ok()) << results[2].status().ToString();
  EXPECT_TRUE(store_->Get("/late").status().IsNotFound());
  EXPECT_TRUE(store_->Get("/b").ok());
}

TEST_F(SqliteStoreTest, GroupCommitBatchesQueuedWrites) {
  constexpr int kWrites = 500;
  Pending pending;
  std::vector<Result<KeyValue>> results(kWrites, Status::Internal("not run"));
  uint64_t commits_before = store_->CommittedTransactionsForTest();
  auto first = pending.Add();
  // The writer is busy in this callback while the writes are queued: one transaction takes them.
  store_->Write(Create("/seed", "s"), [&, first](Result<KeyValue> r) {
    for (int i = 0; i < kWrites; ++i) {
      store_->Write(Create("/k/" + std::to_string(i), "v"), pending.Add(&results, i));
    }
    first(std::move(r));
  });
  ASSERT_TRUE(pending.Wait());
  EXPECT_EQ(store_->CommittedTransactionsForTest() - commits_before, 2u);
  std::set<int64_t> revisions;
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_TRUE(results[i].ok());
    EXPECT_EQ(results[i]->mod_revision, i + 2) << "queue order is revision order";
    revisions.insert(results[i]->mod_revision);
  }
  EXPECT_EQ(revisions.size(), static_cast<size_t>(kWrites));
}

// Finding: an object over about 115 KB failed with "database or disk is full (sqlite code 13)"
// on a disk with room, and so did the small writes committed in the same batch. Objects as large
// as kube-apiserver accepts (a ConfigMap of 1 MiB of data, a 3 MiB body) are stored, in one
// batch with small writes of others, and read back after a reopen.
TEST_F(SqliteStoreTest, LargeObjectsAreStoredBesideSmallOnesInOneBatch) {
  constexpr int kSmall = 50;
  Pending pending;
  std::vector<Result<KeyValue>> results(kSmall + 3, Status::Internal("not run"));
  std::vector<std::string> large = {std::string(200 << 10, 'a'), std::string(1 << 20, 'b'),
                                    std::string(3 << 20, 'c')};
  auto first = pending.Add();
  store_->Write(Create("/seed", "s"), [&, first](Result<KeyValue> r) {
    for (int i = 0; i < kSmall; ++i) {
      store_->Write(Create("/small/" + std::to_string(i), "v"), pending.Add(&results, i));
      if (i % 20 == 0) {
        size_t n = static_cast<size_t>(i / 20);
        store_->Write(Create("/large/" + std::to_string(n), large[n]),
                      pending.Add(&results, kSmall + n));
      }
    }
    first(std::move(r));
  });
  ASSERT_TRUE(pending.Wait());
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.status().ToString();
  Reopen();
  for (size_t n = 0; n < large.size(); ++n) {
    auto got = store_->Get("/large/" + std::to_string(n));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->value, large[n]);
  }
  EXPECT_TRUE(store_->Get("/small/49").ok());
}

// The database and its WAL are readable by the server's user only, whatever the umask; a
// database an older run left world-readable is narrowed on open.
TEST_F(SqliteStoreTest, TheDatabaseAndItsWalAreOwnerOnly) {
  store_.reset();
  ::chmod(dir_.File("store.db").c_str(), 0666);
  for (mode_t umask : {000, 022}) {
    mode_t old = ::umask(umask);
    Reopen();
    ASSERT_TRUE(store_->WriteSync(Create("/umask/" + std::to_string(umask), "v")).ok());
    ::umask(old);
    EXPECT_EQ(testing::ModeOf(dir_.File("store.db")), 0600u) << "umask " << umask;
    EXPECT_EQ(testing::ModeOf(dir_.File("store.db-wal")), 0600u) << "umask " << umask;
    store_.reset();
  }
  SqliteStoreOptions fresh;
  fresh.path = dir_.File("fresh.db");
  mode_t old = ::umask(000);
  auto opened = SqliteStore::Open(fresh);
  ::umask(old);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ASSERT_TRUE((*opened)->WriteSync(Create("/k", "v")).ok());
  EXPECT_EQ(testing::ModeOf(dir_.File("fresh.db")), 0600u);
  EXPECT_EQ(testing::ModeOf(dir_.File("fresh.db-wal")), 0600u);
}

TEST_F(SqliteStoreTest, MaxBatchSizeSplitsTransactions) {
  store_.reset();
  SqliteStoreOptions options;
  options.path = dir_.File("store.db");
  options.max_batch_size = 10;
  auto opened = SqliteStore::Open(options);
  ASSERT_TRUE(opened.ok());
  store_ = std::move(*opened);
  Pending pending;
  auto first = pending.Add();
  store_->Write(Create("/seed", "s"), [&, first](Result<KeyValue> r) {
    for (int i = 0; i < 35; ++i)
      store_->Write(Create("/k/" + std::to_string(i), "v"), pending.Add());
    first(std::move(r));
  });
  ASSERT_TRUE(pending.Wait());
  EXPECT_EQ(store_->CommittedTransactionsForTest(), 1u + 4u);
  EXPECT_EQ(store_->CurrentRevision(), 36);
}

TEST_F(SqliteStoreTest, ConcurrentCasUpdatesAreNeverLost) {
  constexpr int kThreads = 16;
  constexpr int kUpdatesPerThread = 200;
  ASSERT_TRUE(store_->WriteSync(Create("/counter", "0")).ok());
  Collector history;
  auto watch = store_->Watch("/counter", 1, history.Callback());
  ASSERT_TRUE(watch.ok());

  std::mutex mu;
  std::vector<std::pair<int64_t, int>> acknowledged;  // (revision, value written)
  std::vector<std::thread> threads;
  std::atomic<bool> failed{false};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int done = 0; done < kUpdatesPerThread && !failed.load();) {
        auto current = store_->Get("/counter");
        if (!current.ok()) {
          failed.store(true);
          return;
        }
        int next = std::stoi(current->value) + 1;
        auto r = store_->WriteSync(Update("/counter", std::to_string(next), current->mod_revision));
        if (r.ok()) {
          std::lock_guard lock(mu);
          acknowledged.emplace_back(r->mod_revision, next);
          ++done;
        } else if (!r.status().IsConflict()) {
          failed.store(true);
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_FALSE(failed.load());

  constexpr int kTotal = kThreads * kUpdatesPerThread;
  ASSERT_EQ(acknowledged.size(), static_cast<size_t>(kTotal));
  std::sort(acknowledged.begin(), acknowledged.end());
  for (size_t i = 0; i < acknowledged.size(); ++i) {
    // Distinct, consecutive revisions (only this key is written), each adding one.
    EXPECT_EQ(acknowledged[i].first, static_cast<int64_t>(i) + 2);
    EXPECT_EQ(acknowledged[i].second, static_cast<int>(i) + 1);
  }
  auto final_value = store_->Get("/counter");
  ASSERT_TRUE(final_value.ok());
  EXPECT_EQ(final_value->value, std::to_string(kTotal));
  EXPECT_EQ(final_value->mod_revision, kTotal + 1);
  EXPECT_EQ(final_value->create_revision, 1);

  ASSERT_TRUE(history.WaitForRevision(kTotal + 1));
  auto events = history.events();
  ASSERT_EQ(events.size(), static_cast<size_t>(kTotal));
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].kv.mod_revision, acknowledged[i].first);
    EXPECT_EQ(events[i].kv.value, std::to_string(acknowledged[i].second));
  }
}

TEST_F(SqliteStoreTest, AcknowledgedDataSurvivesReopen) {
  ASSERT_TRUE(store_->WriteSync(Create("/a", "1")).ok());
  ASSERT_TRUE(store_->WriteSync(Create("/b", "2")).ok());
  ASSERT_TRUE(store_->WriteSync(Update("/a", "3", 1)).ok());
  ASSERT_TRUE(store_->WriteSync(Create("/c", "4")).ok());
  ASSERT_TRUE(store_->WriteSync(Delete("/c")).ok());  // the newest key: revision 5
  // Queued, not waited for: the destructor commits queued writes before it returns.
  Pending pending;
  std::vector<Result<KeyValue>> results(1, Status::Internal("not run"));
  store_->Write(Create("/d", "5"), pending.Add(&results, 0));
  Reopen();
  ASSERT_TRUE(pending.Wait());
  ASSERT_TRUE(results[0].ok());

  EXPECT_EQ(store_->CurrentRevision(), 6);
  auto a = store_->Get("/a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->value, "3");
  EXPECT_EQ(a->create_revision, 1);
  EXPECT_EQ(a->mod_revision, 3);
  EXPECT_EQ(store_->Get("/b")->value, "2");
  EXPECT_TRUE(store_->Get("/c").status().IsNotFound());
  EXPECT_EQ(store_->Get("/d")->mod_revision, 6);

  ASSERT_TRUE(store_->WriteSync(Delete("/d")).ok());
  Reopen();
  EXPECT_EQ(store_->CurrentRevision(), 7) << "deleting the newest key must not rewind";
  auto next = store_->WriteSync(Create("/e", "6"));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->mod_revision, 8);
}

TEST_F(SqliteStoreTest, HistoryStartsEmptyAfterReopen) {
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(store_->WriteSync(Create("/k" + std::to_string(i), "v")).ok());
  Reopen();
  EXPECT_EQ(store_->OldestWatchableRevision(), 3);
  auto gone = store_->Watch("", 2, [](const std::vector<Event>&) {});
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.status().IsGone());
  EXPECT_EQ(gone.status().message(), "too old resource version: 2 (3)");
  Collector c;
  auto ok = store_->Watch("", 3, c.Callback());
  ASSERT_TRUE(ok.ok());
  ASSERT_TRUE(store_->WriteSync(Create("/new", "v")).ok());
  ASSERT_TRUE(c.WaitForRevision(4));
  EXPECT_EQ(c.revisions(), std::vector<int64_t>{4});
}

// A write whose transaction fails (here: injected for every commit writing /b) fails alone: the
// other writes of its batch are decided again without it and stored, and nothing of the failed
// write is applied, consumes a revision or reaches a watcher.
TEST_F(SqliteStoreTest, AFailedCommitFailsOnlyTheWriteThatCannotBeStored) {
  ASSERT_TRUE(store_->WriteSync(Create("/a", "1")).ok());
  Collector c;
  auto watch = store_->Watch("", 0, c.Callback());
  ASSERT_TRUE(watch.ok());

  std::vector<Result<KeyValue>> results(4, Status::Ok());
  Pending pending;
  auto first = pending.Add();
  store_->FailCommitsWritingForTest("/b");
  store_->Write(Update("/a", "seed"), [&, first](Result<KeyValue> r) {
    store_->Write(Create("/b", "2"), pending.Add(&results, 0));
    store_->Write(Update("/a", "x", 2), pending.Add(&results, 1));
    store_->Write(Create("/a", "dup"), pending.Add(&results, 2));
    store_->Write(Create("/c", "3"), pending.Add(&results, 3));
    first(std::move(r));
  });
  ASSERT_TRUE(pending.Wait());
  EXPECT_EQ(results[0].status().reason(), Reason::kInternalError);
  ASSERT_TRUE(results[1].ok()) << results[1].status().ToString();
  EXPECT_EQ(results[1]->mod_revision, 3) << "a failed commit consumes no revision";
  EXPECT_TRUE(results[2].status().IsAlreadyExists());
  ASSERT_TRUE(results[3].ok()) << results[3].status().ToString();
  EXPECT_EQ(results[3]->mod_revision, 4);
  EXPECT_TRUE(store_->Get("/b").status().IsNotFound());
  EXPECT_EQ(store_->Get("/a")->value, "x");
  ASSERT_TRUE(c.WaitForRevision(4));
  EXPECT_EQ(c.revisions(), (std::vector<int64_t>{2, 3, 4}));

  store_->FailCommitsWritingForTest("");
  auto after = store_->WriteSync(Create("/b", "5"));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->mod_revision, 5);

  watch->reset();
  Reopen();
  EXPECT_EQ(store_->CurrentRevision(), 5);
  EXPECT_EQ(store_->Get("/a")->value, "x");
  EXPECT_EQ(store_->Get("/b")->value, "5");
  EXPECT_EQ(store_->Get("/c")->value, "3");
}

TEST_F(SqliteStoreTest, WatchReplaysFromRevisionThenLive) {
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(store_->WriteSync(Create("/k/" + std::to_string(i), std::to_string(i))).ok());
  }
  ASSERT_TRUE(store_->WriteSync(Update("/k/1", "u", 1)).ok());  // 6
  ASSERT_TRUE(store_->WriteSync(Delete("/k/2")).ok());          // 7
  Collector c;
  auto watch = store_->Watch("/k/", 3, c.Callback());
  ASSERT_TRUE(watch.ok());
  ASSERT_TRUE(store_->WriteSync(Create("/k/9", "9")).ok());  // 8
  ASSERT_TRUE(c.WaitForRevision(8));
  auto events = c.events();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].type, Event::Type::kCreated);
  EXPECT_EQ(events[0].kv.key, "/k/4");
  EXPECT_EQ(events[1].kv.key, "/k/5");
  EXPECT_EQ(events[2].type, Event::Type::kUpdated);
  EXPECT_EQ(events[2].kv.value, "u");
  EXPECT_EQ(events[2].kv.create_revision, 1);
  EXPECT_EQ(events[3].type, Event::Type::kDeleted);
  EXPECT_EQ(events[3].kv.key, "/k/2");
  EXPECT_EQ(events[3].kv.value, "2");
  EXPECT_EQ(events[3].kv.mod_revision, 7);
  EXPECT_EQ(events[4].type, Event::Type::kCreated);
  EXPECT_EQ(events[4].kv.mod_revision, 8);
}

TEST_F(SqliteStoreTest, WatchFromZeroStartsNow) {
  ASSERT_TRUE(store_->WriteSync(Create("/a", "1")).ok());
  Collector c;
  auto watch = store_->Watch("", 0, c.Callback());
  ASSERT_TRUE(watch.ok());
  ASSERT_TRUE(store_->WriteSync(Create("/b", "2")).ok());
  ASSERT_TRUE(c.WaitForRevision(2));
  EXPECT_EQ(c.revisions(), std::vector<int64_t>{2});
  EXPECT_EQ(store_->Watch("", -1, c.Callback()).status().reason(), Reason::kBadRequest);
}

TEST_F(SqliteStoreTest, WatchOlderThanHistoryIsGone) {
  Reopen(/*history=*/4);
  for (int i = 1; i <= 10; ++i)
    ASSERT_TRUE(store_->WriteSync(Create("/k" + std::to_string(i), "v")).ok());
  EXPECT_EQ(store_->OldestWatchableRevision(), 6);
  auto gone = store_->Watch("", 5, [](const std::vector<Event>&) {});
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().reason(), Reason::kGone);
  EXPECT_EQ(gone.status().message(), "too old resource version: 5 (6)");
  Collector c;
  auto ok = store_->Watch("", 6, c.Callback());
  ASSERT_TRUE(ok.ok());
  ASSERT_TRUE(c.WaitForRevision(10));
  EXPECT_EQ(c.revisions(), (std::vector<int64_t>{7, 8, 9, 10}));
}

// Beyond its minimum the history keeps no more writes than so many per stored object: a watch or
// a list from further back is Gone (the client relists, which then costs less than a replay).
// The bound follows the number of objects both ways.
TEST_F(SqliteStoreTest, TheHistoryIsBoundedPerStoredObject) {
  SqliteStoreOptions options;
  options.watch_history_min = 4;
  options.watch_history_per_object = 2;
  options.watch_history_min_age = std::chrono::nanoseconds(0);
  Reopen(options);
  ASSERT_TRUE(store_->WriteSync(Create("/a", "a2")).ok());
  ASSERT_TRUE(store_->WriteSync(Create("/b", "b2")).ok());
  for (int r = 3; r <= 12; ++r) {
    ASSERT_TRUE(store_->WriteSync(Update("/a", "a" + std::to_string(r))).ok());
  }
  // Two objects: max(4, 2 x 2) = 4 writes kept, 9 to 12.
  EXPECT_EQ(store_->OldestWatchableRevision(), 8);
  auto gone = store_->Watch("", 7, [](const std::vector<Event>&) {});
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.status().IsGone());
  EXPECT_TRUE(store_->List("/", ListOptions{.revision = 7}).status().IsGone());
  auto at8 = store_->List("/", ListOptions{.revision = 8});
  ASSERT_TRUE(at8.ok()) << at8.status().ToString();
  ASSERT_EQ(at8->items.size(), 2u);
  EXPECT_EQ(at8->items[0].value, "a8");
  EXPECT_EQ(at8->items[1].value, "b2");
  Collector c;
  auto watch = store_->Watch("", 8, c.Callback());
  ASSERT_TRUE(watch.ok());
  ASSERT_TRUE(c.WaitForRevision(12));
  EXPECT_EQ(c.revisions(), (std::vector<int64_t>{9, 10, 11, 12}));

  // Six objects: 12 writes kept.
  for (const char* key : {"/c", "/d", "/e", "/f"}) {
    ASSERT_TRUE(store_->WriteSync(Create(key, "v")).ok());
  }
  for (int r = 17; r <= 30; ++r) {
    ASSERT_TRUE(store_->WriteSync(Update("/a", "a" + std::to_string(r))).ok());
  }
  EXPECT_EQ(store_->OldestWatchableRevision(), 18);
  auto at18 = store_->List("/", ListOptions{.revision = 18});
  ASSERT_TRUE(at18.ok()) << at18.status().ToString();
  EXPECT_EQ(at18->items[0].value, "a18");
  ASSERT_TRUE(c.WaitForRevision(30));

  // Back to two objects: the history shrinks at once.
  for (const char* key : {"/c", "/d", "/e", "/f"}) {
    ASSERT_TRUE(store_->WriteSync(Delete(key)).ok());
  }
  EXPECT_EQ(store_->OldestWatchableRevision(), 30);
  EXPECT_TRUE(store_->Watch("", 29, [](const std::vector<Event>&) {}).status().IsGone());
  ASSERT_TRUE(c.WaitForRevision(34));
  EXPECT_EQ(c.revisions().size(), 4u + 4u + 14u + 4u);
}

// Writes younger than the minimum age stay beyond the per-object bound, so that a client that
// lists and then watches from the listing's revision within that time finds it, however fast the
// store is written; once older, they go at the next write.
TEST_F(SqliteStoreTest, RecentWritesStayBeyondThePerObjectBound) {
  auto clock = std::make_shared<FakeClock>();
  SqliteStoreOptions options;
  options.watch_history_min = 4;
  options.watch_history_per_object = 2;
  options.watch_history_min_age = std::chrono::seconds(10);
  options.clock = clock;
  Reopen(options);
  ASSERT_TRUE(store_->WriteSync(Create("/a", "a1")).ok());
  ASSERT_TRUE(store_->WriteSync(Create("/b", "b2")).ok());
  for (int r = 3; r <= 12; ++r) {
    ASSERT_TRUE(store_->WriteSync(Update("/a", "a" + std::to_string(r))).ok());
  }
  EXPECT_EQ(store_->OldestWatchableRevision(), 0);
  auto at1 = store_->List("/", ListOptions{.revision = 1});
  ASSERT_TRUE(at1.ok()) << at1.status().ToString();
  ASSERT_EQ(at1->items.size(), 1u);
  EXPECT_EQ(at1->items[0].value, "a1");

  clock->Advance(std::chrono::seconds(11));
  ASSERT_TRUE(store_->WriteSync(Update("/a", "a13")).ok());
  // Two objects: 4 writes kept, 10 to 13.
  EXPECT_EQ(store_->OldestWatchableRevision(), 9);
  EXPECT_TRUE(store_->List("/", ListOptions{.revision = 8}).status().IsGone());
  auto at9 = store_->List("/", ListOptions{.revision = 9});
  ASSERT_TRUE(at9.ok()) << at9.status().ToString();
  EXPECT_EQ(at9->items[0].value, "a9");
}

TEST_F(SqliteStoreTest, WatchFiltersByPrefix) {
  Collector leases, maps;
  auto wl = store_->Watch("/leases/", 0, leases.Callback());
  auto wm = store_->Watch("/configmaps/", 0, maps.Callback());
  ASSERT_TRUE(wl.ok() && wm.ok());
  ASSERT_TRUE(store_->WriteSync(Create("/leases/a", "1")).ok());
  ASSERT_TRUE(store_->WriteSync(Create("/configmaps/a", "2")).ok());
  ASSERT_TRUE(store_->WriteSync(Create("/leasesX", "3")).ok());
  ASSERT_TRUE(store_->WriteSync(Create("/leases/b", "4")).ok());
  ASSERT_TRUE(leases.WaitForRevision(4));
  ASSERT_TRUE(maps.WaitForRevision(2));
  EXPECT_EQ(leases.revisions(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(maps.revisions(), std::vector<int64_t>{2});
}

TEST_F(SqliteStoreTest, DestroyedWatchGetsNoMoreEvents) {
  Collector dropped, witness;
  auto h = store_->Watch("", 0, dropped.Callback());
  auto w = store_->Watch("", 0, witness.Callback());
  ASSERT_TRUE(h.ok() && w.ok());
  ASSERT_TRUE(store_->WriteSync(Create("/a", "1")).ok());
  ASSERT_TRUE(dropped.WaitForRevision(1));
  h->reset();
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(store_->WriteSync(Create("/b" + std::to_string(i), "v")).ok());
  ASSERT_TRUE(witness.WaitForRevision(11));
  EXPECT_EQ(dropped.revisions(), std::vector<int64_t>{1});
}

TEST_F(SqliteStoreTest, CallbacksMayCallIntoTheStore) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> seen;
  auto watch = store_->Watch("/in/", 0, [&](const std::vector<Event>& events) {
    for (const Event& e : events) {
      auto got = store_->Get(e.kv.key);  // reads from the dispatcher thread
      store_->Write(Create("/out/" + e.kv.key.substr(4), got.ok() ? got->value : "?"),
                    [&](Result<KeyValue> r) {
                      std::lock_guard lock(mu);
                      seen.push_back(r.ok() ? r->value : r.status().ToString());
                      cv.notify_all();
                    });
    }
  });
  ASSERT_TRUE(watch.ok());
  ASSERT_TRUE(store_->WriteSync(Create("/in/x", "hello")).ok());
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, kDeadline, [&] { return !seen.empty(); }));
  EXPECT_EQ(seen, std::vector<std::string>{"hello"});
}

TEST_F(SqliteStoreTest, WritesAfterShutdownFailUnavailable) {
  // Writes issued from a callback while the destructor drains the queue are refused.
  std::mutex mu;
  std::vector<Reason> reasons;
  Pending pending;
  auto first = pending.Add();
  store_->Write(Create("/a", "1"), [&, first](Result<KeyValue> r) { first(std::move(r)); });
  ASSERT_TRUE(pending.Wait());
  SqliteStore* raw = store_.get();
  auto second = pending.Add();
  raw->Write(Create("/b", "1"), [&, raw, second](Result<KeyValue> r) {
    // By now the destructor may have begun; either outcome is allowed, but never a hang.
    raw->Write(Create("/c", "1"), [&](Result<KeyValue> inner) {
      std::lock_guard lock(mu);
      reasons.push_back(inner.status().reason());
    });
    second(std::move(r));
  });
  store_.reset();
  ASSERT_TRUE(pending.Wait());
  std::lock_guard lock(mu);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_TRUE(reasons[0] == Reason::kOk || reasons[0] == Reason::kServiceUnavailable);
}

TEST_F(SqliteStoreTest, SecondOpenOfTheSameFileFails) {
  SqliteStoreOptions options;
  options.path = dir_.File("store.db");
  auto second = SqliteStore::Open(options);
  EXPECT_FALSE(second.ok());
}

TEST_F(SqliteStoreTest, ConcurrentWritersAndWatchersSeeEveryEventInOrder) {
  constexpr int kWriters = 4;
  constexpr int kKeysPerWriter = 10;
  constexpr int kOpsPerWriter = 150;
  const std::vector<std::string> prefixes = {"", "/a/", "/b/", "/a/1", "/c/"};
  constexpr int kWatchersPerPrefix = 8;

  struct Watcher {
    std::string prefix;
    Collector collector;
    std::atomic<bool> out_of_order{false};
    std::mutex mu;
    int64_t last = 0;
    std::unique_ptr<WatchHandle> handle;
  };
  std::vector<std::unique_ptr<Watcher>> watchers;
  int64_t start = store_->CurrentRevision();
  for (const std::string& prefix : prefixes) {
    for (int i = 0; i < kWatchersPerPrefix; ++i) {
      auto w = std::make_unique<Watcher>();
      w->prefix = prefix;
      auto inner = w->collector.Callback();
      Watcher* raw = w.get();
      auto h = store_->Watch(prefix, start, [raw, inner](const std::vector<Event>& events) {
        {
          std::lock_guard lock(raw->mu);
          for (const Event& e : events) {
            if (e.kv.mod_revision <= raw->last) raw->out_of_order.store(true);
            raw->last = e.kv.mod_revision;
          }
        }
        inner(events);
      });
      ASSERT_TRUE(h.ok());
      w->handle = std::move(*h);
      watchers.push_back(std::move(w));
    }
  }

  std::mutex mu;
  std::map<int64_t, std::string> acknowledged;  // revision -> key
  std::vector<std::thread> writers;
  std::atomic<bool> failed{false};
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back([&, t] {
      const std::string prefix = t % 2 == 0 ? "/a/" : "/b/";
      std::map<std::string, int64_t> mine;  // key -> mod_revision
      for (int i = 0; i < kOpsPerWriter; ++i) {
        std::string key = prefix + std::to_string(t) + "-" + std::to_string(i % kKeysPerWriter);
        if (t == 3 && i % 7 == 0) key = "/a/1" + std::to_string(i);  // occasional overlaps
        Result<KeyValue> r = Status::Ok();
        auto it = mine.find(key);
        if (it == mine.end()) {
          r = store_->WriteSync(Create(key, std::to_string(i)));
        } else if (i % 5 == 0) {
          r = store_->WriteSync(Delete(key, it->second));
        } else {
          r = store_->WriteSync(Update(key, std::to_string(i), it->second));
        }
        if (!r.ok()) {
          failed.store(true);
          return;
        }
        if (it == mine.end()) {
          mine[key] = r->mod_revision;
        } else if (i % 5 == 0) {
          mine.erase(it);
        } else {
          it->second = r->mod_revision;
        }
        std::lock_guard lock(mu);
        acknowledged[r->mod_revision] = key;
      }
    });
  }
  for (auto& t : writers) t.join();
  ASSERT_FALSE(failed.load());
  const int64_t end = store_->CurrentRevision();
  ASSERT_EQ(acknowledged.size(), static_cast<size_t>(end - start));

  for (auto& w : watchers) {
    std::vector<int64_t> want;
    for (const auto& [revision, key] : acknowledged) {
      if (std::string_view(key).starts_with(w->prefix)) want.push_back(revision);
    }
    if (!want.empty()) {
      ASSERT_TRUE(w->collector.WaitForRevision(want.back())) << w->prefix;
    }
    EXPECT_EQ(w->collector.revisions(), want) << w->prefix;
    EXPECT_FALSE(w->out_of_order.load());
  }
  for (auto& w : watchers) w->handle.reset();
}

}  // namespace
}  // namespace tenure::store
