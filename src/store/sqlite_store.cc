// SqliteStore: the Store contract on SQLite with group commit; its WAL VFS: sqlite_coalescing_vfs.
#include "store/sqlite_store.h"

#include <pthread.h>
#include <sqlite3.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "store/private_files.h"
#include "store/sqlite_coalescing_vfs.h"

namespace tenure::store {
namespace {

Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  message += " (sqlite code " + std::to_string(rc) + ")";
  return Status::Internal(std::move(message));
}

// An owned prepared statement.
class Statement {
 public:
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  }

  Status Prepare(sqlite3* db, const char* sql) {
    db_ = db;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
    if (rc != SQLITE_OK) return SqliteError(db, rc, std::string("prepare ") + sql);
    return Status::Ok();
  }

  sqlite3_stmt* get() const { return stmt_; }

  Status BindText(int index, std::string_view text) {
    return Check(
        sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC),
        "bind");
  }
  Status BindBlob(int index, std::string_view blob) {
    // data() of a std::string is never null, so an empty value binds as an empty blob, not NULL.
    return Check(
        sqlite3_bind_blob(stmt_, index, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC),
        "bind");
  }
  Status BindInt(int index, int64_t value) {
    return Check(sqlite3_bind_int64(stmt_, index, value), "bind");
  }

  // Runs a statement that returns no rows, then resets it.
  Status Run() {
    int rc = sqlite3_step(stmt_);
    Status status = rc == SQLITE_DONE ? Status::Ok() : SqliteError(db_, rc, sqlite3_sql(stmt_));
    Reset();
    return status;
  }

  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

 private:
  Status Check(int rc, std::string_view what) {
    return rc == SQLITE_OK ? Status::Ok() : SqliteError(db_, rc, what);
  }

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

Status Exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string message = std::string(sql) + ": " + (error != nullptr ? error : sqlite3_errstr(rc));
  sqlite3_free(error);
  return Status::Internal(message);
}

// Runs a pragma that answers with one text row and returns that row.
Result<std::string> QueryText(sqlite3* db, const char* sql) {
  Statement stmt;
  if (Status s = stmt.Prepare(db, sql); !s.ok()) return s;
  int rc = sqlite3_step(stmt.get());
  if (rc != SQLITE_ROW) return SqliteError(db, rc, sql);
  const unsigned char* text = sqlite3_column_text(stmt.get(), 0);
  std::string value = text != nullptr ? reinterpret_cast<const char*>(text) : "";
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
  }
  if (rc != SQLITE_DONE) return SqliteError(db, rc, sql);
  return value;
}

std::string ColumnString(sqlite3_stmt* stmt, int column) {
  const void* data = sqlite3_column_blob(stmt, column);
  int size = sqlite3_column_bytes(stmt, column);
  if (data == nullptr || size <= 0) return std::string();
  return std::string(static_cast<const char*>(data), static_cast<size_t>(size));
}

}  // namespace

struct SqliteStore::Statements {
  Statement begin;
  Statement commit;
  Statement rollback;
  Statement put;
  Statement remove;
  Statement set_revision;
  Statement get_revision;

  Status Prepare(sqlite3* db) {
    for (auto [stmt, sql] : {
             std::pair{&begin, "BEGIN IMMEDIATE"},
             std::pair{&commit, "COMMIT"},
             std::pair{&rollback, "ROLLBACK"},
             std::pair{&put,
                       "INSERT OR REPLACE INTO kv(key, value, create_revision, mod_revision) "
                       "VALUES(?1, ?2, ?3, ?4)"},
             std::pair{&remove, "DELETE FROM kv WHERE key = ?1"},
             std::pair{&set_revision, "UPDATE meta SET value = ?1 WHERE name = 'revision'"},
             std::pair{&get_revision, "SELECT value FROM meta WHERE name = 'revision'"},
         }) {
      if (Status s = stmt->Prepare(db, sql); !s.ok()) return s;
    }
    return Status::Ok();
  }
};

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const SqliteStoreOptions& options) {
  if (options.path.empty()) return Status::BadRequest("sqlite store: empty database path");
  // The database is created 0600 before SQLite opens it (SQLite gives its WAL and journal the
  // database file's mode); an older run's looser files are narrowed.
  if (options.path != ":memory:") {
    if (Status s = EnsurePrivateFile(options.path); !s.ok()) return s;
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      if (Status s = EnsurePrivateFile(options.path + suffix, /*create=*/false); !s.ok()) return s;
    }
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(options.path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           CoalescingVfs());
  if (rc != SQLITE_OK) {
    Status status = SqliteError(db, rc, "open " + options.path);
    sqlite3_close(db);
    return status;
  }
  // From here the store owns `db` and closes it on every path.
  std::unique_ptr<SqliteStore> store(new SqliteStore(options, db));
  sqlite3_extended_result_codes(db, 1);

  // Exclusive locking: the lock is taken by the first access below and kept until close, so a
  // second process fails here instead of writing behind this one's in-memory cache.
  if (Status s = Exec(db, "PRAGMA locking_mode=EXCLUSIVE"); !s.ok()) return s;
  Result<std::string> mode = QueryText(db, "PRAGMA journal_mode=WAL");
  if (!mode.ok()) return mode.status();
  if (*mode != "wal" && !(*mode == "memory" && options.path == ":memory:")) {
    return Status::Internal("sqlite store: cannot enable WAL journal mode (got " + *mode + ")");
  }
  for (const char* sql : {
           "PRAGMA synchronous=FULL",
           "CREATE TABLE IF NOT EXISTS kv(key TEXT PRIMARY KEY, value BLOB NOT NULL, "
           "create_revision INTEGER NOT NULL, mod_revision INTEGER NOT NULL) WITHOUT ROWID",
           "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
           "INSERT OR IGNORE INTO meta(name, value) VALUES('revision', 0)",
       }) {
    if (Status s = Exec(db, sql); !s.ok()) return s;
  }
  Result<std::string> sync = QueryText(db, "PRAGMA synchronous");
  if (!sync.ok()) return sync.status();
  if (*sync != "2") return Status::Internal("sqlite store: synchronous=FULL not in effect");

  if (Status s = store->statements_->Prepare(db); !s.ok()) return s;
  if (Status s = store->Load(); !s.ok()) return s;
  // The ceiling bounds the history; the hub applies the bound per object and the minimum age.
  store->hub_ = std::make_unique<WatchHub>(options.watch_history_capacity, store->revision_,
                                           options.watch_history_bytes);
  store->hub_->SetHistoryMinAge(options.watch_history_min_age,
                                options.clock ? options.clock : Clock::Real());
  store->history_capacity_ = store->HistoryCapacity();
  store->hub_->SetHistoryCapacity(store->history_capacity_);
  store->writer_ = std::thread([s = store.get()] { s->RunWriter(); });
  return store;
}

SqliteStore::SqliteStore(const SqliteStoreOptions& options, sqlite3* db)
    : options_(options), db_(db), statements_(std::make_unique<Statements>()) {}

SqliteStore::~SqliteStore() {
  Close();
  statements_.reset();
  if (db_ != nullptr) sqlite3_close(db_);
}

void SqliteStore::Close() {
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  // Event callbacks may still call into the store while the dispatcher stops; hub_ stays valid.
  if (hub_) hub_->Shutdown();
}

Status SqliteStore::Load() {
  Statement select;
  if (Status s = select.Prepare(
          db_, "SELECT key, value, create_revision, mod_revision FROM kv ORDER BY key");
      !s.ok()) {
    return s;
  }
  int64_t max_revision = 0;
  int rc;
  while ((rc = sqlite3_step(select.get())) == SQLITE_ROW) {
    KeyValue kv{ColumnString(select.get(), 0), ColumnString(select.get(), 1),
                sqlite3_column_int64(select.get(), 2), sqlite3_column_int64(select.get(), 3)};
    max_revision = std::max(max_revision, kv.mod_revision);
    SharedEvent event = compactor_.MakeEvent(Event::Type::kCreated, kv);
    std::string_view key = event->key;
    data_.emplace_hint(data_.end(), key, std::move(event));
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, rc, "load kv");
  Status status;
  int64_t stored = ReadStoredRevision(&status);
  if (!status.ok()) return status;
  revision_ = std::max(stored, max_revision);
  return Status::Ok();
}

int64_t SqliteStore::ReadStoredRevision(Status* status) {
  Statement& stmt = statements_->get_revision;
  int rc = sqlite3_step(stmt.get());
  int64_t revision = 0;
  if (rc == SQLITE_ROW) {
    revision = sqlite3_column_int64(stmt.get(), 0);
    *status = Status::Ok();
  } else {
    *status = SqliteError(db_, rc, "read revision");
  }
  stmt.Reset();
  return revision;
}

Result<KeyValue> SqliteStore::Get(std::string_view key) {
  SharedEvent event;
  {
    std::shared_lock lock(data_mu_);
    auto it = data_.find(key);
    if (it == data_.end()) return Status::NotFound("key not found: " + std::string(key));
    event = it->second;
  }
  return event->ToKeyValue();  // rebuilt without the lock
}

Result<ListResult> SqliteStore::List(std::string_view prefix, const ListOptions& options) {
  ListResult result;
  const std::string_view from = std::max(prefix, std::string_view(options.start_key));
  const auto limit = static_cast<uint64_t>(std::max<int64_t>(options.limit, 0));
  // Appends an item while the page has room; counts it as remaining afterwards.
  auto room = [&] {
    if (limit != 0 && result.items.size() >= limit) {
      ++result.remaining;
      return false;
    }
    return true;
  };
  auto add = [&](const KeyValue& kv) {
    if (room()) result.items.push_back(kv);
  };
  auto add_current = [&](const auto& it) {
    if (room()) result.items.push_back(it->second->ToKeyValue());
  };
  std::shared_lock lock(data_mu_);
  result.revision = revision_;
  auto it = data_.lower_bound(from);
  auto in_range = [&] { return it != data_.end() && it->first.starts_with(prefix); };
  if (options.revision == 0 || options.revision == revision_) {
    for (; in_range(); ++it) add_current(it);
    return result;
  }
  if (options.revision > revision_) {
    return Status::BadRequest("revision " + std::to_string(options.revision) +
                              " is in the future (current " + std::to_string(revision_) + ")");
  }
  // The current state, with each key written since then as it was: both walks are in key order.
  // The hub's history changes only under data_mu_ held uniquely: it matches data_ here.
  result.revision = options.revision;
  Status past = hub_->ForEachChangedSince(options.revision, prefix, from,
                                          [&](std::string_view key, const KeyValue* then) {
                                            for (; in_range() && it->first < key; ++it) {
                                              add_current(it);
                                            }
                                            if (in_range() && it->first == key) ++it;
                                            if (then != nullptr) add(*then);
                                          });
  if (!past.ok()) return past;
  for (; in_range(); ++it) add_current(it);
  return result;
}

int64_t SqliteStore::CurrentRevision() {
  std::shared_lock lock(data_mu_);
  return revision_;
}

int64_t SqliteStore::OldestWatchableRevision() { return hub_->OldestWatchableRevision(); }

void SqliteStore::Write(WriteOp op, WriteCallback done) {
  StoredText stored;
  if (op.kind != WriteOp::Kind::kDelete) stored = compactor_.Compact(op.key, op.value);
  bool notify = false;
  {
    std::lock_guard lock(queue_mu_);
    if (!stopping_) {
      queue_.push_back(PendingWrite{std::move(op), std::move(done), std::move(stored)});
      done = nullptr;
      // The writer waits either for a first write or, lingering, for linger_target_ of them.
      notify = queue_.size() == 1 || (linger_target_ != 0 && queue_.size() >= linger_target_);
    }
  }
  if (!done) {
    if (notify) queue_cv_.notify_one();
    return;
  }
  done(Status::Unavailable("store is shutting down"));
}

Result<std::unique_ptr<WatchHandle>> SqliteStore::Watch(std::string_view prefix,
                                                        int64_t from_revision,
                                                        EventCallback on_events) {
  if (from_revision < 0) return Status::BadRequest("negative resource version");
  // The hub's last published revision is CurrentRevision(): both change under data_mu_.
  return hub_->Watch(prefix, from_revision, std::move(on_events));
}

namespace {
constexpr std::chrono::microseconds kLinger{200};
constexpr size_t kLingerMinBatch = 4;
}  // namespace

void SqliteStore::RunWriter() {
  pthread_setname_np(pthread_self(), "tenure-writer");
  const size_t max_batch = std::max<size_t>(1, options_.max_batch_size);
  std::vector<PendingWrite> batch;
  size_t last_batch = 0;
  while (true) {
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and every queued write was committed
      // Group commit under concurrency: when the last batch was large, wait a moment (at most
      // kLinger) for as many writes again, so that fewer, larger transactions share the cost
      // of an fsync (on a virtual disk each one costs the CPU a couple of device kicks). A lone
      // writer never waits: its batches have one write.
      size_t want = std::min(last_batch, max_batch);
      if (!stopping_ && want >= kLingerMinBatch && queue_.size() < want) {
        linger_target_ = want;
        queue_cv_.wait_for(lock, kLinger, [&] { return stopping_ || queue_.size() >= want; });
        linger_target_ = 0;
      }
      size_t n = std::min(queue_.size(), max_batch);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    last_batch = batch.size();
    CommitBatch(batch);
    batch.clear();
  }
}

void SqliteStore::CommitBatch(std::vector<PendingWrite>& batch) {
  // The writer thread is the only one that modifies data_ and revision_, so it reads them
  // without data_mu_. Each decision sees the batch's earlier writes (null: deleted).
  std::unordered_map<std::string_view, const Event*> overlay;
  // What a key holds as the decisions see it: a write of this batch, or the stored version.
  struct Current {
    const Event* written = nullptr;
    const StoredEvent* stored = nullptr;
    int64_t create_revision() const {
      return written ? written->kv.create_revision : stored->create_revision;
    }
    int64_t mod_revision() const {
      return written ? written->kv.mod_revision : stored->mod_revision;
    }
    std::string value() const { return written ? written->kv.value : stored->value.Text(); }
  };
  auto lookup = [&](std::string_view key) -> std::optional<Current> {
    if (auto o = overlay.find(key); o != overlay.end()) {
      if (o->second == nullptr) return std::nullopt;
      return Current{o->second, nullptr};
    }
    auto it = data_.find(key);
    if (it == data_.end()) return std::nullopt;
    return Current{nullptr, it->second.get()};
  };

  std::vector<Result<KeyValue>> results;
  results.reserve(batch.size());
  // Mutable until published: a failed commit hands the values back to their writes.
  std::vector<std::shared_ptr<Event>> events;
  std::vector<PendingWrite*> event_writes;  // the write of each event (its value moved away)
  int64_t revision = revision_;
  const Deadline batch_start = std::chrono::steady_clock::now();
  for (PendingWrite& write : batch) {
    WriteOp& op = write.op;
    if (failed_) {
      results.push_back(Status::Unavailable("store is in a failed state after a storage error"));
      continue;
    }
    if (op.deadline <= batch_start) {
      // Queued past its caller's deadline (an overloaded writer): not applied, so that the
      // writer's time goes to writes someone still waits for.
      results.push_back(Status::Timeout(
          "the write's deadline passed while it waited for the store (the write was not "
          "applied)"));
      continue;
    }
    if (op.key.empty()) {
      results.push_back(Status::BadRequest("key must not be empty"));
      continue;
    }
    const std::optional<Current> current = lookup(op.key);
    if (op.kind == WriteOp::Kind::kCreate) {
      if (current) {
        results.push_back(Status::AlreadyExists("key already exists: " + op.key));
        continue;
      }
    } else {
      if (!current) {
        results.push_back(Status::NotFound("key not found: " + op.key));
        continue;
      }
      if (op.expected_revision != 0 && op.expected_revision != current->mod_revision()) {
        results.push_back(Status::Conflict("revision mismatch for " + op.key + ": expected " +
                                           std::to_string(op.expected_revision) + ", current " +
                                           std::to_string(current->mod_revision())));
        continue;
      }
    }
    ++revision;
    auto event = std::make_shared<Event>();
    event->kv.key = op.key;
    event->kv.mod_revision = revision;
    switch (op.kind) {
      case WriteOp::Kind::kCreate:
        event->type = Event::Type::kCreated;
        event->kv.value = std::move(op.value);
        event->kv.create_revision = revision;
        break;
      case WriteOp::Kind::kUpdate:
        event->type = Event::Type::kUpdated;
        event->kv.value = std::move(op.value);
        event->kv.create_revision = current->create_revision();
        break;
      case WriteOp::Kind::kDelete:
        event->type = Event::Type::kDeleted;
        event->kv.value = current->value();
        event->kv.create_revision = current->create_revision();
        break;
    }
    overlay[event->kv.key] = event->type == Event::Type::kDeleted ? nullptr : event.get();
    results.push_back(event->kv);
    events.push_back(std::move(event));
    event_writes.push_back(&write);
  }

  if (!events.empty()) {
    Status status = Persist(events, revision);
    if (status.ok()) {
      commits_.fetch_add(1);
      // Made before the lock: readers wait for the state's change only.
      std::vector<SharedEvent> stored;
      stored.reserve(events.size());
      for (size_t i = 0; i < events.size(); ++i) {
        const Event& e = *events[i];
        if (e.type == Event::Type::kDeleted) {
          stored.push_back(compactor_.MakeEvent(e.type, e.kv));
        } else {
          stored.push_back(std::make_shared<const StoredEvent>(
              StoredEvent{e.type, e.kv.key, std::move(event_writes[i]->stored),
                          e.kv.create_revision, e.kv.mod_revision}));
        }
      }
      std::unique_lock lock(data_mu_);
      std::vector<PublishedEvent> published = Apply(events, stored);
      revision_ = revision;
      if (size_t capacity = HistoryCapacity(); capacity != history_capacity_) {
        history_capacity_ = capacity;
        hub_->SetHistoryCapacity(capacity);
      }
      // Under data_mu_, so that the hub's head and CurrentRevision() move together, and its
      // history matches data_ for lists at a past revision.
      hub_->Publish(std::move(published));
    } else if (batch.size() > 1 && !failed_) {
      // Nothing of the batch is applied (rolled back): decide each half again on its own,
      // with the values the decisions above moved into the events.
      overlay.clear();
      for (size_t i = 0; i < events.size(); ++i) {
        if (events[i]->type != Event::Type::kDeleted) {
          event_writes[i]->op.value = std::move(events[i]->kv.value);
        }
      }
      size_t half = batch.size() / 2;
      std::vector<PendingWrite> first(std::make_move_iterator(batch.begin()),
                                      std::make_move_iterator(batch.begin() + half));
      std::vector<PendingWrite> second(std::make_move_iterator(batch.begin() + half),
                                       std::make_move_iterator(batch.end()));
      CommitBatch(first);
      CommitBatch(second);
      return;
    } else {
      Status failure = Status::Internal("commit failed: " + status.message());
      for (Result<KeyValue>& result : results) result = failure;
    }
  }

  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].done) batch[i].done(std::move(results[i]));
  }
}

std::vector<PublishedEvent> SqliteStore::Apply(std::vector<std::shared_ptr<Event>>& events,
                                               const std::vector<SharedEvent>& stored) {
  std::vector<PublishedEvent> published;
  published.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const SharedEvent& event = stored[i];
    auto it = data_.find(std::string_view(event->key));
    SharedEvent previous;
    if (it != data_.end()) {
      previous = it->second;
      // The node's key views the replaced event's key: the node goes with it.
      it = data_.erase(it);
    }
    // The history keeps the replaced version as a delta against this one.
    published.push_back(
        PublishedEvent{event, event->type != Event::Type::kCreated ? std::move(previous) : nullptr,
                       std::move(events[i]->kv.value)});
    if (event->type != Event::Type::kDeleted) data_.emplace_hint(it, event->key, event);
  }
  return published;
}

size_t SqliteStore::HistoryCapacity() const {
  return WatchHub::CapacityFor(data_.size(), options_.watch_history_capacity,
                               options_.watch_history_min, options_.watch_history_per_object);
}

Status SqliteStore::Persist(const std::vector<std::shared_ptr<Event>>& events,
                            int64_t new_revision) {
  Statements& st = *statements_;
  if (Status s = st.begin.Run(); !s.ok()) {
    (void)Rollback();
    return s;
  }
  auto write_all = [&]() -> Status {
    for (const std::shared_ptr<Event>& event : events) {
      const KeyValue& kv = event->kv;
      if (event->type == Event::Type::kDeleted) {
        if (Status s = st.remove.BindText(1, kv.key); !s.ok()) return s;
        if (Status s = st.remove.Run(); !s.ok()) return s;
        continue;
      }
      for (Status s : {st.put.BindText(1, kv.key), st.put.BindBlob(2, kv.value),
                       st.put.BindInt(3, kv.create_revision), st.put.BindInt(4, kv.mod_revision)}) {
        if (!s.ok()) {
          st.put.Reset();
          return s;
        }
      }
      if (Status s = st.put.Run(); !s.ok()) return s;
    }
    if (Status s = st.set_revision.BindInt(1, new_revision); !s.ok()) return s;
    if (Status s = st.set_revision.Run(); !s.ok()) return s;
    {
      std::lock_guard lock(queue_mu_);
      for (const std::shared_ptr<Event>& event : events) {
        if (!fail_commits_writing_.empty() && event->kv.key == fail_commits_writing_) {
          return Status::Internal("injected commit failure");
        }
      }
    }
    return st.commit.Run();
  };
  Status status = write_all();
  if (!status.ok()) (void)Rollback();
  return status;
}

Status SqliteStore::Rollback() {
  // A failed COMMIT may leave the transaction open (e.g. SQLITE_BUSY) or SQLite may already have
  // rolled it back (I/O error); either way the database must end at revision_.
  if (sqlite3_get_autocommit(db_) == 0) {
    if (Status s = statements_->rollback.Run(); !s.ok() && sqlite3_get_autocommit(db_) == 0) {
      failed_ = true;
      return s;
    }
  }
  Status status;
  int64_t stored = ReadStoredRevision(&status);
  if (!status.ok() || stored != revision_) {
    failed_ = true;
    return status.ok() ? Status::Internal("revision on disk differs after rollback") : status;
  }
  return Status::Ok();
}

}  // namespace tenure::store
