// SqliteStore: the embedded, durable Store backend (one SQLite file, WAL, synchronous=FULL).
//
// Guarantees, beyond the Store contract:
// - Every object is cached in memory, loaded at Open: Get, List and CurrentRevision never touch
//   SQLite; they see a write only after its transaction committed (fsynced).
// - One writer thread owns the connection and group-commits: it takes every queued write (up to
//   max_batch_size), decides each in order against the committed state plus the earlier writes
//   of the batch, gives successful ones consecutive revisions and commits them in one
//   transaction. Failed writes (Conflict, NotFound, AlreadyExists) consume no revision. A failed
//   commit fails every write of the batch with InternalError and changes nothing. When the
//   previous batch had several writes and fewer are queued, the writer waits up to 200 us for as
//   many (fewer, larger commits under load; a single client never waits).
// - The WAL file's writes of one commit reach the file as one pwrite() before its fsync (a
//   coalescing VFS over the default one; nothing is acknowledged before the fsync).
// - The revision is stored in its own table, so it never goes backwards across restarts, even
//   after the newest key was deleted. The watch history starts empty at Open: a watch from an
//   older revision is Gone, and so is a list at an earlier revision (it reads what each write
//   since replaced from the same history: WatchHub::ForEachChangedSince).
// - The database is opened in exclusive locking mode: a second process cannot open it while this
//   store is open.
// Threads: write callbacks run on the writer thread, event callbacks on the WatchHub dispatcher
// thread. Both may call Get/List/CurrentRevision/Write/Watch and destroy WatchHandles; neither may
// block (no WriteSync) nor destroy the store. Write after shutdown began fails at once with
// ServiceUnavailable (its callback runs on the calling thread). The destructor commits every
// write already queued, then joins its threads; WatchHandles may outlive the store.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "store/store.h"
#include "store/watch_hub.h"
#include "tenure/clock.h"
#include "tenure/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tenure::store {

struct SqliteStoreOptions {
  std::string path;  // database file, created when missing
  // Writes kept for watches and lists from a past revision (the watch hub's history): at most
  // watch_history_capacity of them and watch_history_bytes, and beyond
  // watch_history_min no more than watch_history_per_object per stored object (see
  // WatchHub::CapacityFor; 0: no per-object bound), except the writes of the last
  // watch_history_min_age.
  size_t watch_history_capacity = 100000;
  size_t watch_history_bytes = WatchHub::kDefaultHistoryBytes;
  size_t watch_history_min = 10000;
  size_t watch_history_per_object = 2;
  // Writes younger than this stay beyond the per-object bound (see WatchHub::SetHistoryMinAge).
  std::chrono::nanoseconds watch_history_min_age = std::chrono::seconds(10);
  std::shared_ptr<Clock> clock;  // for the minimum age; null: the real clock
  size_t max_batch_size = 1024;  // writes committed in one transaction at most
};

class SqliteStore : public Store {
 public:
  static Result<std::unique_ptr<SqliteStore>> Open(const SqliteStoreOptions& options);
  ~SqliteStore() override;

  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  void Close() override;
  Result<KeyValue> Get(std::string_view key) override;
  using Store::List;
  Result<ListResult> List(std::string_view prefix, const ListOptions& options) override;
  int64_t CurrentRevision() override;
  void Write(WriteOp op, WriteCallback done) override;
  Result<std::unique_ptr<WatchHandle>> Watch(std::string_view prefix, int64_t from_revision,
                                             EventCallback on_events) override;

  // The smallest from_revision Watch accepts (older ones are Gone).
  int64_t OldestWatchableRevision();

  // For tests: transactions committed since Open, and commit failures: every transaction that
  // writes `key` is rolled back instead of committed ("" : none).
  uint64_t CommittedTransactionsForTest() const { return commits_.load(); }
  void FailCommitsWritingForTest(std::string key) {
    std::lock_guard lock(queue_mu_);
    fail_commits_writing_ = std::move(key);
  }

 private:
  struct PendingWrite {
    WriteOp op;
    WriteCallback done;
    // A create's or update's value as data_ will keep it: compacted on the caller's thread, not
    // the writer's, which every write waits for.
    StoredText stored;
  };
  struct Statements;

  SqliteStore(const SqliteStoreOptions& options, sqlite3* db);
  Status Load();
  void RunWriter();
  // Decides and persists the batch in one transaction. When that fails, each half is decided
  // and persisted again on its own, down to single writes: a write that cannot be stored fails
  // alone, never the other writes of its batch.
  void CommitBatch(std::vector<PendingWrite>& batch);
  // Writes the batch's events and the new revision in one transaction; OK once committed. On
  // failure the transaction is rolled back.
  Status Persist(const std::vector<std::shared_ptr<Event>>& events, int64_t new_revision);
  // Applies committed events to data_ in order (under data_mu_), `stored` being each as data_
  // keeps it; returns them for the watch hub, each update and deletion with the version it
  // replaced, and their values moved from `events`.
  std::vector<PublishedEvent> Apply(std::vector<std::shared_ptr<Event>>& events,
                                    const std::vector<SharedEvent>& stored);
  // How many writes the history keeps now (see SqliteStoreOptions), from data_'s size.
  size_t HistoryCapacity() const;
  // Ends an open transaction; marks the store failed when the disk state is then unknown.
  Status Rollback();
  int64_t ReadStoredRevision(Status* status);

  const SqliteStoreOptions options_;
  sqlite3* db_ = nullptr;  // used only by the writer thread after Open
  std::unique_ptr<Statements> statements_;

  // Guards data_, revision_ and what hub_'s history holds (writer-thread reads need none).
  mutable std::shared_mutex data_mu_;
  // Each key's current version: the event that wrote it (shared with the watch history); the
  // map's key views that event's key.
  std::map<std::string_view, SharedEvent, std::less<>> data_;
  ValueCompactor compactor_;  // the values of data_ and of the history
  int64_t revision_ = 0;
  size_t history_capacity_ = 0;  // the history's capacity now (writer thread)

  std::unique_ptr<WatchHub> hub_;

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<PendingWrite> queue_;
  bool stopping_ = false;
  size_t linger_target_ = 0;  // under queue_mu_: the queue size a lingering writer waits for
  bool failed_ = false;       // writer thread only: disk state unknown after a failed rollback

  std::atomic<uint64_t> commits_{0};
  std::string fail_commits_writing_;  // under queue_mu_
  std::thread writer_;
};

}  // namespace tenure::store
