// Store: a revisioned key-value store, the only place tenure's server keeps objects.
//
// Contract (shared by every backend, checked by one conformance suite):
// - One global revision counts every successful write (create, update, delete); it is strictly
//   increasing and never reused, also across restarts. An object's mod_revision is its
//   resourceVersion.
// - A write is acknowledged (its callback runs with OK) only after it is durable. Writes that
//   arrive together may be committed together (group commit); their order is their revision
//   order.
// - Create fails with AlreadyExists, Update/Delete with NotFound when the key is absent, and with
//   Conflict when expected_revision is non-zero and differs from the key's mod_revision.
// - Reads (Get, List) see only acknowledged writes. List returns the revision it reflects. A list
//   may also read as of an earlier revision while the store still keeps the writes after it
//   (Gone once they were compacted or dropped), and a page of it: from a key, at most so many.
// - Watch(prefix, from) delivers every change to keys under prefix with revision > from, in
//   revision order, without gaps or duplicates, first from history then live. When `from` is
//   older than the kept history it fails with Gone ("too old resource version").
// Thread-safe: every method may be called from any thread. Callbacks run on a store thread and
// must not block; they may call back into the store.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tenure/status.h"

namespace tenure::store {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
};

struct ListResult {
  std::vector<KeyValue> items;  // ordered by key
  int64_t revision = 0;         // the store revision this list reflects
  int64_t remaining = 0;        // keys of the range after the last item (a page's rest)
};

// Which part of a prefix's keys a List reads, and as of when.
struct ListOptions {
  // The state right after the write of this revision; 0: the current state. Gone when the store
  // no longer keeps the writes after it; BadRequest when the store has not reached it.
  int64_t revision = 0;
  std::string start_key;  // the first key to consider (under the prefix); "": the prefix's first
  int64_t limit = 0;      // at most this many items (the rest is counted in `remaining`); 0: all
};

// When the caller stops waiting for an operation (a request's deadline, e.g. the client's
// `?timeout=`). A backend whose operations take round trips gives up then with Timeout and
// shares what is left among the members it may try; a write still queued at its deadline is
// answered Timeout without being applied (no backend spends work on an answer no one awaits);
// kNoDeadline: the backend's own request timeout only.
using Deadline = std::chrono::steady_clock::time_point;
inline constexpr Deadline kNoDeadline = Deadline::max();

struct WriteOp {
  enum class Kind { kCreate, kUpdate, kDelete };
  Kind kind = Kind::kCreate;
  std::string key;
  std::string value;              // ignored for kDelete
  int64_t expected_revision = 0;  // kUpdate/kDelete: 0 means unconditional
  Deadline deadline = kNoDeadline;
};

struct Event {
  enum class Type { kCreated, kUpdated, kDeleted };
  Type type = Type::kCreated;
  // For kDeleted: value is the last value before deletion, mod_revision the delete's revision.
  KeyValue kv;
  // For kUpdated, on a delivered event: what the key held before this write (a watch with a
  // selector sends ADDED or DELETED when an object starts or stops matching). Null for the
  // other types, or when the backend no longer knows it. A store never keeps an event that
  // carries one in its state or history (a chain of them would hold every past value of a key):
  // the watch hub keeps it beside the event and adds it to the copies it delivers.
  std::shared_ptr<const KeyValue> previous;
};

// A running watch. Destroying it stops delivery: once the destructor returns, its callback is
// never called again.
class WatchHandle {
 public:
  virtual ~WatchHandle() = default;
};

using WriteCallback = std::function<void(Result<KeyValue>)>;
// Receives events in revision order, possibly several at once.
using EventCallback = std::function<void(const std::vector<Event>&)>;

class Store {
 public:
  virtual ~Store() = default;

  virtual Result<KeyValue> Get(std::string_view key) = 0;
  // Get for a caller that waits only until `deadline` (see Deadline); the default is Get (local
  // reads do not wait).
  virtual Result<KeyValue> GetBefore(std::string_view key, Deadline deadline) {
    (void)deadline;
    return Get(key);
  }
  // The key's value as of its change at `mod_revision`, when this store holds it locally and
  // can answer without a round trip; nullopt otherwise (the default). Says nothing about whether
  // that is still the key's current value: a write expecting `mod_revision` is still compared.
  // An update whose expected revision is known this way needs no read first.
  virtual std::optional<KeyValue> KnownValue(std::string_view key, int64_t mod_revision) {
    (void)key;
    (void)mod_revision;
    return std::nullopt;
  }
  virtual Result<ListResult> List(std::string_view prefix, const ListOptions& options) = 0;
  // Every key under prefix, now.
  Result<ListResult> List(std::string_view prefix) { return List(prefix, ListOptions{}); }
  // The revision of the last acknowledged write.
  virtual int64_t CurrentRevision() = 0;

  // Asynchronous write: `done` runs once the write is durable (OK, with the key's new KeyValue;
  // for a delete, the deleted value and the delete's revision) or has failed.
  virtual void Write(WriteOp op, WriteCallback done) = 0;

  // Starts a watch of keys under `prefix` with revisions > from_revision (0 means: from now).
  virtual Result<std::unique_ptr<WatchHandle>> Watch(std::string_view prefix, int64_t from_revision,
                                                     EventCallback on_events) = 0;

  // Stops the store: later writes fail with Unavailable, queued ones are answered, and Close
  // returns once no write callback or watch delivery runs any more, so whoever those callbacks
  // call into may be destroyed after it. Idempotent; the destructor closes the store.
  virtual void Close() {}

  // Whether Get/List/CurrentRevision wait for a network round trip (the caller then wants more
  // threads to keep requests in flight) rather than read local state.
  virtual bool ReadsBlock() const { return false; }

  // Blocking convenience over Write.
  Result<KeyValue> WriteSync(WriteOp op);
};

}  // namespace tenure::store
