// Lock: where an election keeps its record. The elector knows the lock only through this small
// interface (as client-go's resourcelock.Interface), so a user can add their own.
//
// Contract:
// - Get returns the current record and its version, or NotFound.
// - Create and Update are compare-and-swap writes: Create fails with AlreadyExists, Update with
//   Conflict when the record changed since this lock last read or wrote it (optimistic
//   concurrency on the version), and they return what was written (record, raw form, version).
// - A version is an integer that strictly increases with every write to the record (a Kubernetes
//   resourceVersion); the elector uses the version of the write that started a term as that
//   term's fencing token.
// - UpdateAt is optional: Update as a compare-and-swap on a version the caller names, one this
//   lock returned or its watch delivered, so that a watching follower acts on the record it saw
//   without reading it again. A lock that does not hold that version (or cannot do this) fails
//   with Conflict without a request; the elector then reads and updates.
// - Every call returns within `timeout` (Timeout or Unavailable otherwise).
// - Watch is optional: a lock that can observe changes calls `on_change` with the new record
//   after each one (in order, from any thread) until the returned handle is destroyed. It may
//   leave out the echo of this lock's own Create or Update (whose result that call returned).
//   nullptr means: not supported (the elector then polls every retry period).
// Implementations must be safe to call from several threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "tenure/leader_election_record.h"
#include "tenure/status.h"

namespace tenure {

struct ObservedRecord {
  LeaderElectionRecord record;
  std::string raw;      // the record's serialized form: a change of bytes is a change
  int64_t version = 0;  // e.g. the resourceVersion
};

class LockWatch {
 public:
  virtual ~LockWatch() = default;
  // false while changes cannot be observed (stream down, watch refused by the server): the
  // elector then polls every retry period until the watch is back.
  virtual bool active() const { return true; }
};

class Lock {
 public:
  using Timeout = std::chrono::nanoseconds;
  virtual ~Lock() = default;

  virtual Result<ObservedRecord> Get(Timeout timeout) = 0;
  virtual Result<ObservedRecord> Create(const LeaderElectionRecord& record, Timeout timeout) = 0;
  virtual Result<ObservedRecord> Update(const LeaderElectionRecord& record, Timeout timeout) = 0;
  virtual Result<ObservedRecord> UpdateAt(const LeaderElectionRecord& record, int64_t version,
                                          Timeout timeout) {
    (void)record;
    (void)timeout;
    return Status::Conflict(Describe() + ": cannot update at version " + std::to_string(version));
  }

  // The identity this lock writes as holder.
  virtual std::string Identity() const = 0;
  // "namespace/name" for messages.
  virtual std::string Describe() const = 0;

  virtual std::unique_ptr<LockWatch> Watch(std::function<void(const ObservedRecord&)> on_change) {
    (void)on_change;
    return nullptr;
  }
  // Records a Kubernetes Event about the lock object; a no-op where there is nowhere to post.
  virtual void RecordEvent(std::string_view reason, std::string_view message) {
    (void)reason;
    (void)message;
  }
};

}  // namespace tenure
