// One Lock contract suite (lock.h), run on every lock kind: MemoryLock, LeaseLock, ConfigMapLock.
//
// "memory" is MemoryLocks sharing one MemoryLockStore; "lease" and "configmap" are locks on an
// in-process tenure server started for each test, every lock with a connection of its own as
// separate candidates would have. Each test works on one record (default/conformance) through
// locks with different identities, the way competing candidates do: compare-and-swap writes,
// versions, raw forms, watches, and calls that must not hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/test_loopback_listener.h"
#include "tenure/cluster.h"
#include "tenure/kube_locks.h"
#include "tenure/lock.h"
#include "tenure/memory_lock.h"
#include "tenure/testing/waits.h"
#include "testing/in_process_server.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;
using testing::InProcessServer;
using TimePoint = std::chrono::system_clock::time_point;

constexpr char kNamespace[] = "default";
constexpr char kName[] = "conformance";
// For calls that must succeed: generous, as sanitizer builds run several times slower.
constexpr auto kCallTimeout = 10s;
// For calls that must fail (unreachable or hung server), and how long they may take at most: ten
// times the timeout, so the check is "returns instead of hanging", not a timing figure.
constexpr auto kFailingCallTimeout = 500ms;
constexpr auto kFailingCallBound = 5s;

// A fixed instant with a sub-second part in whole microseconds, the precision every lock keeps:
// a Lease's acquireTime and renewTime are MicroTimes (lease_lock.cc writes them with
// api::FormatMicroTime, the server's schema keeps MicroTime to the microsecond, ParseTime reads
// it back), the ConfigMap annotation carries the same microsecond text (leader_annotation.cc)
// and MemoryLock keeps the value itself. So times compare exactly: a lock that kept only
// seconds or milliseconds would fail.
constexpr TimePoint kBaseTime = TimePoint{std::chrono::seconds{1'900'000'000}} + 123456us;

int64_t MicrosSinceEpoch(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

// Field by field, for readable failures.
void ExpectSameRecord(const LeaderElectionRecord& got, const LeaderElectionRecord& want,
                      const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(got.holder_identity, want.holder_identity);
  EXPECT_EQ(got.lease_duration_seconds, want.lease_duration_seconds);
  EXPECT_TRUE(got.acquire_time == want.acquire_time)
      << "acquire_time " << MicrosSinceEpoch(got.acquire_time) << " us, want "
      << MicrosSinceEpoch(want.acquire_time);
  EXPECT_TRUE(got.renew_time == want.renew_time)
      << "renew_time " << MicrosSinceEpoch(got.renew_time) << " us, want "
      << MicrosSinceEpoch(want.renew_time);
  EXPECT_EQ(got.leader_transitions, want.leader_transitions);
  EXPECT_EQ(got.strategy, want.strategy);
  EXPECT_EQ(got.preferred_holder, want.preferred_holder);
}

template <typename T>
::testing::AssertionResult Ok(const Result<T>& result) {
  if (result.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << result.status().ToString();
}

// What a watch delivered, from whichever thread it calls on. Declare it before the watch handle
// so the handle (which stops the calls) is destroyed first.
class Deliveries {
 public:
  std::function<void(const ObservedRecord&)> Callback() {
    return [this](const ObservedRecord& record) {
      std::lock_guard lock(mu_);
      records_.push_back(record);
    };
  }
  std::vector<ObservedRecord> records() const {
    std::lock_guard lock(mu_);
    return records_;
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return records_.size();
  }
  std::optional<ObservedRecord> Find(int64_t version) const {
    std::lock_guard lock(mu_);
    for (const ObservedRecord& r : records_) {
      if (r.version == version) return r;
    }
    return std::nullopt;
  }

 private:
  mutable std::mutex mu_;
  std::vector<ObservedRecord> records_;
};

// A loopback port that accepts connections (the kernel completes them into the backlog) and
// never answers: a hung server.
using SilentPort = client::LoopbackListener;

class LockConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (kube()) {
      auto server = InProcessServer::Start();
      ASSERT_TRUE(Ok(server));
      server_ = std::move(*server);
    }
    for (const char* identity : {"a", "b", "c"}) {
      auto lock = NewLock(identity);
      ASSERT_TRUE(Ok(lock));
      locks_.push_back(std::move(*lock));
    }
  }
  void TearDown() override {
    locks_.clear();  // before the server they talk to
    server_.reset();
  }

  bool kube() const { return GetParam() != "memory"; }

  // A lock on the record as a separate candidate holds it (kube kinds: its own connection).
  Result<std::shared_ptr<Lock>> NewLock(const std::string& identity) {
    if (!kube()) return std::shared_ptr<Lock>(std::make_shared<MemoryLock>(memory_, identity));
    auto cluster = server_->Connect();
    if (!cluster.ok()) return cluster.status();
    return NewKubeLock(std::move(*cluster), identity);
  }

  std::shared_ptr<Lock> NewKubeLock(std::shared_ptr<Cluster> cluster,
                                    const std::string& identity) const {
    KubeLockOptions options{
        .namespace_ = kNamespace, .name = kName, .identity = identity, .publish_events = false};
    if (GetParam() == "lease") return NewLeaseLock(std::move(cluster), std::move(options));
    return NewConfigMapLock(std::move(cluster), std::move(options));
  }

  Lock& a() { return *locks_[0]; }
  Lock& b() { return *locks_[1]; }
  Lock& c() { return *locks_[2]; }

  // A record as `holder` writes it, renewed `renewed_after` its acquisition at kBaseTime.
  static LeaderElectionRecord Record(const std::string& holder, int transitions,
                                     std::chrono::microseconds renewed_after = 0us) {
    LeaderElectionRecord r;
    r.holder_identity = holder;
    r.lease_duration_seconds = 15;
    r.acquire_time = kBaseTime;
    r.renew_time = kBaseTime + renewed_after;
    r.leader_transitions = transitions;
    return r;
  }

  // A write as a candidate makes it: read the current record, then update it.
  static Result<ObservedRecord> ReadThenUpdate(Lock& lock, const LeaderElectionRecord& record) {
    auto current = lock.Get(kCallTimeout);
    if (!current.ok()) return current.status();
    return lock.Update(record, kCallTimeout);
  }

  // `call` fails as an unreachable server makes it fail (Timeout or Unavailable), and returns
  // within kFailingCallBound.
  static void ExpectFailsPromptly(const std::string& what,
                                  const std::function<Result<ObservedRecord>()>& call) {
    SCOPED_TRACE(what);
    auto start = std::chrono::steady_clock::now();
    Result<ObservedRecord> result = call();
    auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(result.status().reason() == Reason::kTimeout ||
                result.status().reason() == Reason::kServiceUnavailable)
        << result.status().ToString();
    EXPECT_TRUE(took < kFailingCallBound)
        << "took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
        << " ms with a timeout of " << kFailingCallTimeout.count() << " ms";
  }

  std::shared_ptr<MemoryLockStore> memory_ = std::make_shared<MemoryLockStore>();
  std::unique_ptr<InProcessServer> server_;
  std::vector<std::shared_ptr<Lock>> locks_;
};

TEST_P(LockConformanceTest, GetOfAMissingRecordIsNotFound) {
  auto got = a().Get(kCallTimeout);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.status().IsNotFound()) << got.status().ToString();
}

TEST_P(LockConformanceTest, CreateWritesTheRecordAndASecondCreateFailsAlreadyExists) {
  LeaderElectionRecord record = Record("a", 0);
  auto created = a().Create(record, kCallTimeout);
  ASSERT_TRUE(Ok(created));
  EXPECT_GT(created->version, 0);
  EXPECT_FALSE(created->raw.empty());
  ExpectSameRecord(created->record, record, "what Create returns");

  auto by_b = b().Create(Record("b", 0), kCallTimeout);
  ASSERT_FALSE(by_b.ok());
  EXPECT_TRUE(by_b.status().IsAlreadyExists()) << by_b.status().ToString();
  auto by_a = a().Create(Record("a", 0, 1s), kCallTimeout);  // the creator's own second Create
  ASSERT_FALSE(by_a.ok());
  EXPECT_TRUE(by_a.status().IsAlreadyExists()) << by_a.status().ToString();

  auto got = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(got));
  EXPECT_EQ(got->version, created->version);
  ExpectSameRecord(got->record, record, "the record after the refused creates");
}

TEST_P(LockConformanceTest, GetReturnsWhatWasWritten) {
  LeaderElectionRecord first;
  first.holder_identity = "a";
  first.lease_duration_seconds = 17;
  first.acquire_time = kBaseTime;
  first.renew_time = kBaseTime + 2s + 654321us;
  first.leader_transitions = 3;
  auto created = a().Create(first, kCallTimeout);
  ASSERT_TRUE(Ok(created));
  auto got = b().Get(kCallTimeout);
  ASSERT_TRUE(Ok(got));
  ExpectSameRecord(got->record, first, "Get after Create");
  EXPECT_EQ(got->version, created->version);
  EXPECT_EQ(got->raw, created->raw);

  LeaderElectionRecord second;
  second.holder_identity = "b";
  second.lease_duration_seconds = 23;
  second.acquire_time = kBaseTime + 5s + 1us;
  second.renew_time = kBaseTime + 5s + 250001us;
  second.leader_transitions = 4;
  auto updated = b().Update(second, kCallTimeout);
  ASSERT_TRUE(Ok(updated));
  ExpectSameRecord(updated->record, second, "what Update returns");
  auto reread = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(reread));
  ExpectSameRecord(reread->record, second, "Get after Update");
  EXPECT_EQ(reread->version, updated->version);
  EXPECT_EQ(reread->raw, updated->raw);
}

TEST_P(LockConformanceTest, UpdateWithTheCurrentVersionSucceedsWithAHigherVersion) {
  auto created = a().Create(Record("a", 0), kCallTimeout);
  ASSERT_TRUE(Ok(created));
  // The creator's view is its own write.
  auto renewed = a().Update(Record("a", 0, 1s), kCallTimeout);
  ASSERT_TRUE(Ok(renewed));
  EXPECT_GT(renewed->version, created->version);
  // Another lock's view is what it read.
  auto taken = ReadThenUpdate(b(), Record("b", 1, 2s));
  ASSERT_TRUE(Ok(taken));
  EXPECT_GT(taken->version, renewed->version);
  auto got = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(got));
  EXPECT_EQ(got->version, taken->version);
  EXPECT_EQ(got->record.holder_identity, "b");
}

TEST_P(LockConformanceTest, StaleUpdateFailsWithConflictAndChangesNothingUntilTheLockReads) {
  ASSERT_TRUE(Ok(a().Create(Record("a", 0), kCallTimeout)));
  ASSERT_TRUE(Ok(b().Get(kCallTimeout)));
  auto renewed = a().Update(Record("a", 0, 1s), kCallTimeout);  // b's view is now stale
  ASSERT_TRUE(Ok(renewed));

  auto stale = b().Update(Record("b", 1, 2s), kCallTimeout);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(stale.status().IsConflict()) << stale.status().ToString();
  // A failed write is no read: the view stays stale.
  auto still_stale = b().Update(Record("b", 1, 3s), kCallTimeout);
  ASSERT_FALSE(still_stale.ok());
  EXPECT_TRUE(still_stale.status().IsConflict()) << still_stale.status().ToString();

  auto got = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(got));
  EXPECT_EQ(got->version, renewed->version);
  EXPECT_EQ(got->raw, renewed->raw);
  ExpectSameRecord(got->record, Record("a", 0, 1s), "the record after the refused updates");

  auto fresh = ReadThenUpdate(b(), Record("b", 1, 4s));
  ASSERT_TRUE(Ok(fresh));
  EXPECT_GT(fresh->version, renewed->version);
  EXPECT_EQ(fresh->record.holder_identity, "b");
}

// UpdateAt: a compare-and-swap on the version the caller names, a version its watch delivered,
// without reading first (a watching follower's takeover).
TEST_P(LockConformanceTest, UpdateAtAWatchedVersionWritesWithoutAReadFirst) {
  ASSERT_TRUE(Ok(a().Create(Record("a", 0), kCallTimeout)));
  Deliveries seen_by_b;
  auto watch = b().Watch(seen_by_b.Callback());
  ASSERT_NE(watch, nullptr);
  auto renewed = a().Update(Record("a", 0, 1s), kCallTimeout);
  ASSERT_TRUE(Ok(renewed));
  ASSERT_TRUE(Eventually([&] { return seen_by_b.Find(renewed->version).has_value(); }));
  auto taken = b().UpdateAt(Record("b", 1, 2s), renewed->version, kCallTimeout);
  ASSERT_TRUE(Ok(taken));
  EXPECT_GT(taken->version, renewed->version);
  auto got = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(got));
  EXPECT_EQ(got->version, taken->version);
  ExpectSameRecord(got->record, Record("b", 1, 2s), "the record written at the watched version");
  // The lock's view is its write: a plain Update goes on from it.
  ASSERT_TRUE(Ok(b().Update(Record("b", 1, 3s), kCallTimeout)));
}

// A version that is no longer the record's, or one the lock never saw, is a Conflict that
// changes nothing.
TEST_P(LockConformanceTest, UpdateAtAVersionThatIsNotCurrentIsAConflictAndChangesNothing) {
  auto created = a().Create(Record("a", 0), kCallTimeout);
  ASSERT_TRUE(Ok(created));
  ASSERT_TRUE(Ok(b().Get(kCallTimeout)));
  auto renewed = a().Update(Record("a", 0, 1s), kCallTimeout);  // b's version is now stale
  ASSERT_TRUE(Ok(renewed));
  for (int64_t version : {created->version, renewed->version + 1000}) {
    auto stale = b().UpdateAt(Record("b", 1, 2s), version, kCallTimeout);
    ASSERT_FALSE(stale.ok()) << "at version " << version;
    EXPECT_TRUE(stale.status().IsConflict()) << stale.status().ToString();
  }
  auto got = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(got));
  EXPECT_EQ(got->version, renewed->version);
  ExpectSameRecord(got->record, Record("a", 0, 1s), "the record after the refused updates");
}

TEST_P(LockConformanceTest, VersionsStrictlyIncreaseOverWritesByAlternatingLocks) {
  auto created = a().Create(Record("a", 0), kCallTimeout);
  ASSERT_TRUE(Ok(created));
  int64_t last_version = created->version;
  std::string last_holder = "a";
  int transitions = 0;
  for (Lock* lock : {&b(), &c(), &a(), &c(), &b(), &a()}) {
    SCOPED_TRACE("write " + std::to_string(transitions + 1) + " by " + lock->Identity());
    auto current = lock->Get(kCallTimeout);
    ASSERT_TRUE(Ok(current));
    EXPECT_EQ(current->version, last_version) << "Get returns the latest write";
    EXPECT_EQ(current->record.holder_identity, last_holder);
    ++transitions;
    auto written =
        lock->Update(Record(lock->Identity(), transitions, transitions * 1s), kCallTimeout);
    ASSERT_TRUE(Ok(written));
    EXPECT_GT(written->version, last_version);
    last_version = written->version;
    last_holder = lock->Identity();
  }
}

TEST_P(LockConformanceTest, RawChangesWheneverTheRecordChanges) {
  auto created = a().Create(Record("a", 0), kCallTimeout);
  ASSERT_TRUE(Ok(created));
  ASSERT_FALSE(created->raw.empty());
  auto read = b().Get(kCallTimeout);
  ASSERT_TRUE(Ok(read));
  EXPECT_EQ(read->raw, created->raw) << "the same record reads as the same bytes";

  auto second_later = a().Update(Record("a", 0, 1s), kCallTimeout);
  ASSERT_TRUE(Ok(second_later));
  EXPECT_NE(second_later->raw, created->raw) << "renew_time moved by a second";
  // Every lock keeps microseconds (see kBaseTime): a renewal within the same second is a change
  // of bytes too.
  auto millisecond_later = a().Update(Record("a", 0, 1s + 1ms), kCallTimeout);
  ASSERT_TRUE(Ok(millisecond_later));
  EXPECT_NE(millisecond_later->raw, second_later->raw) << "renew_time moved by a millisecond";
  auto new_holder = ReadThenUpdate(b(), Record("b", 0, 1s + 1ms));
  ASSERT_TRUE(Ok(new_holder));
  EXPECT_NE(new_holder->raw, millisecond_later->raw) << "only the holder changed";

  auto reread = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(reread));
  EXPECT_EQ(reread->raw, new_holder->raw);
}

TEST_P(LockConformanceTest, UpdateWithUnchangedContentSucceedsAndKeepsTheLockCurrent) {
  auto created = a().Create(Record("a", 0), kCallTimeout);
  ASSERT_TRUE(Ok(created));
  auto same = a().Update(Record("a", 0), kCallTimeout);
  ASSERT_TRUE(Ok(same));
  // A server keeps the resourceVersion of a no-op write; MemoryLock writes a new version. Either
  // way it never goes back, the record is as written and the lock can write again.
  EXPECT_GE(same->version, created->version);
  EXPECT_EQ(same->raw, created->raw);
  ExpectSameRecord(same->record, Record("a", 0), "what the unchanged Update returns");
  auto next = a().Update(Record("a", 0, 1s), kCallTimeout);
  ASSERT_TRUE(Ok(next));
  EXPECT_GT(next->version, same->version);
}

TEST_P(LockConformanceTest, UpdateWithoutARecordFailsAndCreatesNothing) {
  auto got = a().Get(kCallTimeout);
  ASSERT_FALSE(got.ok());
  ASSERT_TRUE(got.status().IsNotFound()) << got.status().ToString();
  auto updated = a().Update(Record("a", 0), kCallTimeout);
  EXPECT_FALSE(updated.ok());
  auto after = b().Get(kCallTimeout);
  ASSERT_FALSE(after.ok());
  EXPECT_TRUE(after.status().IsNotFound()) << after.status().ToString();
}

TEST_P(LockConformanceTest, UpdateByALockThatNeverReadFailsAndChangesNothing) {
  auto created = a().Create(Record("a", 0), kCallTimeout);
  ASSERT_TRUE(Ok(created));
  // The contract leaves the reason open: MemoryLock answers Conflict, the kube locks NotFound
  // ("not read yet").
  auto blind = b().Update(Record("b", 1, 1s), kCallTimeout);
  EXPECT_FALSE(blind.ok());
  auto got = c().Get(kCallTimeout);
  ASSERT_TRUE(Ok(got));
  EXPECT_EQ(got->version, created->version);
  EXPECT_EQ(got->record.holder_identity, "a");
}

TEST_P(LockConformanceTest, ConcurrentUpdatesFromOneVersionHaveExactlyOneWinner) {
  ASSERT_TRUE(Ok(a().Create(Record("a", 0), kCallTimeout)));
  for (int round = 1; round <= 5; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    auto read_a = a().Get(kCallTimeout);
    auto read_b = b().Get(kCallTimeout);
    ASSERT_TRUE(Ok(read_a));
    ASSERT_TRUE(Ok(read_b));
    ASSERT_EQ(read_a->version, read_b->version);
    Result<ObservedRecord> by_a = Status::Internal("not run");
    Result<ObservedRecord> by_b = Status::Internal("not run");
    std::latch start(2);
    std::thread thread_a([&] {
      start.arrive_and_wait();
      by_a = a().Update(Record("a", round, round * 1s), kCallTimeout);
    });
    std::thread thread_b([&] {
      start.arrive_and_wait();
      by_b = b().Update(Record("b", round, round * 1s), kCallTimeout);
    });
    thread_a.join();
    thread_b.join();
    ASSERT_NE(by_a.ok(), by_b.ok())
        << "a: " << by_a.status().ToString() << ", b: " << by_b.status().ToString();
    const Result<ObservedRecord>& winner = by_a.ok() ? by_a : by_b;
    const Result<ObservedRecord>& loser = by_a.ok() ? by_b : by_a;
    EXPECT_TRUE(loser.status().IsConflict()) << loser.status().ToString();
    EXPECT_GT(winner->version, read_a->version);
    auto got = c().Get(kCallTimeout);
    ASSERT_TRUE(Ok(got));
    EXPECT_EQ(got->version, winner->version);
    EXPECT_EQ(got->record.holder_identity, winner->record.holder_identity);
  }
}

TEST_P(LockConformanceTest, WatchSeesAnotherLocksWriteUntilItsHandleIsDestroyed) {
  ASSERT_TRUE(Ok(a().Create(Record("a", 0), kCallTimeout)));
  Deliveries first;
  auto watch = a().Watch(first.Callback());
  ASSERT_NE(watch, nullptr) << "every lock kind supports watch";
  auto by_b = ReadThenUpdate(b(), Record("b", 1, 1s));
  ASSERT_TRUE(Ok(by_b));
  ASSERT_TRUE(Eventually([&] { return first.Find(by_b->version).has_value(); }))
      << "the watch never delivered version " << by_b->version;
  ObservedRecord seen = *first.Find(by_b->version);
  ExpectSameRecord(seen.record, by_b->record, "the delivered record");
  EXPECT_EQ(seen.raw, by_b->raw);

  watch.reset();
  const size_t delivered = first.size();
  auto unseen = ReadThenUpdate(b(), Record("b", 1, 2s));
  ASSERT_TRUE(Ok(unseen));
  // A barrier: a new watch on the same lock (for kube kinds the same connection, whose one
  // stream per collection delivers in order) sees a later write, so a delivery of `unseen` to
  // the destroyed watch would have come by now. MemoryLock delivers a lone writer's write before
  // Update returns.
  Deliveries second;
  auto watch2 = a().Watch(second.Callback());
  ASSERT_NE(watch2, nullptr);
  auto marker = ReadThenUpdate(b(), Record("b", 1, 3s));
  ASSERT_TRUE(Ok(marker));
  ASSERT_TRUE(Eventually([&] { return second.Find(marker->version).has_value(); }))
      << "the new watch never delivered version " << marker->version;
  EXPECT_EQ(first.size(), delivered) << "the destroyed watch still delivered";
  EXPECT_FALSE(first.Find(unseen->version).has_value());
  EXPECT_FALSE(first.Find(marker->version).has_value());
}

TEST_P(LockConformanceTest, AWatchOutlivesTheLockItCameFrom) {
  ASSERT_TRUE(Ok(a().Create(Record("a", 0), kCallTimeout)));
  auto own = NewLock("d");
  ASSERT_TRUE(Ok(own));
  std::shared_ptr<Lock> watched = std::move(*own);
  Deliveries seen;
  auto watch = watched->Watch(seen.Callback());
  ASSERT_NE(watch, nullptr);
  watched.reset();  // the caller's lock is gone; its watch handle is not
  auto written = ReadThenUpdate(b(), Record("b", 1, 1s));
  ASSERT_TRUE(Ok(written));
  ASSERT_TRUE(Eventually([&] { return seen.Find(written->version).has_value(); }))
      << "the watch never delivered version " << written->version;
  ExpectSameRecord(seen.Find(written->version)->record, written->record, "the delivered record");
}

TEST_P(LockConformanceTest, WatchDeliversEveryLaterWriteInOrder) {
  ASSERT_TRUE(Ok(a().Create(Record("a", 0), kCallTimeout)));
  Deliveries seen;
  auto watch = c().Watch(seen.Callback());
  ASSERT_NE(watch, nullptr);
  // A kube watch starts in the background, listing the current state first: once it delivered
  // this write, every later one must come, in order.
  auto start = a().Update(Record("a", 0, 1s), kCallTimeout);
  ASSERT_TRUE(Ok(start));
  ASSERT_TRUE(Eventually([&] { return seen.Find(start->version).has_value(); }))
      << "the watch never delivered version " << start->version;

  std::vector<int64_t> written_versions;
  std::vector<std::string> written_holders;
  for (int i = 1; i <= 6; ++i) {
    Lock& writer = i % 2 == 1 ? b() : a();
    auto written = ReadThenUpdate(writer, Record(writer.Identity(), i, (i + 1) * 1s));
    ASSERT_TRUE(Ok(written));
    written_versions.push_back(written->version);
    written_holders.push_back(writer.Identity());
  }
  ASSERT_TRUE(Eventually([&] { return seen.Find(written_versions.back()).has_value(); }))
      << "the watch never delivered version " << written_versions.back();

  std::vector<ObservedRecord> records = seen.records();
  for (size_t i = 1; i < records.size(); ++i) {
    EXPECT_GT(records[i].version, records[i - 1].version) << "delivery " << i << " out of order";
  }
  auto it = std::find_if(records.begin(), records.end(),
                         [&](const ObservedRecord& r) { return r.version == start->version; });
  ASSERT_NE(it, records.end());
  std::vector<int64_t> later_versions;
  std::vector<std::string> later_holders;
  for (++it; it != records.end(); ++it) {
    later_versions.push_back(it->version);
    later_holders.push_back(it->record.holder_identity);
  }
  EXPECT_EQ(later_versions, written_versions);
  EXPECT_EQ(later_holders, written_holders);
}

TEST_P(LockConformanceTest, IdentityIsTheConfiguredOneAndDescribeNamesTheLock) {
  EXPECT_EQ(a().Identity(), "a");
  EXPECT_EQ(b().Identity(), "b");
  EXPECT_FALSE(a().Describe().empty());
  if (kube()) {
    EXPECT_EQ(a().Describe(), std::string(kNamespace) + "/" + kName);
  }
}

TEST_P(LockConformanceTest, CallsFailPromptlyWhenTheServerIsUnreachable) {
  // a's view is current, so its Update is really sent (not refused for want of a read).
  ASSERT_TRUE(Ok(a().Create(Record("a", 0), kCallTimeout)));
  if (kube()) {
    server_->Stop();
  } else {
    memory_->SetFailure(Status::Unavailable("simulated outage"));
  }
  ExpectFailsPromptly("Get", [&] { return a().Get(kFailingCallTimeout); });
  ExpectFailsPromptly("Update",
                      [&] { return a().Update(Record("a", 0, 1s), kFailingCallTimeout); });
  ExpectFailsPromptly("Create", [&] { return b().Create(Record("b", 0), kFailingCallTimeout); });
}

TEST_P(LockConformanceTest, CallsReturnWithinTheirTimeoutWhenTheServerHangs) {
  if (!kube()) {
    memory_->SetHung(true);  // calls wait for an answer that never comes
    ExpectFailsPromptly("Get", [&] { return a().Get(kFailingCallTimeout); });
    ExpectFailsPromptly("Create", [&] { return a().Create(Record("a", 0), kFailingCallTimeout); });
    memory_->SetHung(false);
    return;
  }
  SilentPort silent;
  ASSERT_TRUE(silent.ok()) << "cannot listen on a loopback port";
  ClusterOptions options;
  options.kubeconfig =
      server_->credentials().kubeconfig_file;  // its CA and token, with the silent port as server
  options.servers = {std::string(server_->endpoint().tls.enabled ? "https" : "http") +
                     "://127.0.0.1:" + std::to_string(silent.port())};
  auto cluster = Cluster::Connect(options);
  ASSERT_TRUE(Ok(cluster));
  std::shared_ptr<Lock> lock = NewKubeLock(*cluster, "d");
  ExpectFailsPromptly("Get", [&] { return lock->Get(kFailingCallTimeout); });
  ExpectFailsPromptly("Create", [&] { return lock->Create(Record("d", 0), kFailingCallTimeout); });
}

INSTANTIATE_TEST_SUITE_P(AllLocks, LockConformanceTest,
                         ::testing::Values("memory", "lease", "configmap"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tenure
