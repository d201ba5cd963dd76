// MemoryLock: a Lock kept in process memory. Several MemoryLocks sharing one MemoryLockStore
// compete for the same record, with the same compare-and-swap and watch semantics as a Lease
// on a server. For tests of code that uses an Elector, and for elections inside one process.
// The store can simulate an unreachable server (every call fails) or a hung one (calls block
// until released).
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tenure/lock.h"

namespace tenure {

class MemoryLockStore : public std::enable_shared_from_this<MemoryLockStore> {
 public:
  std::optional<ObservedRecord> current() const;
  // Every call fails with `status` until SetFailure(Status::Ok()).
  void SetFailure(Status status);
  // Calls block (for real) until SetHung(false), then fail with Unavailable, or until their
  // timeout passes, then fail with Timeout.
  void SetHung(bool hung);
  // Calls currently blocked by SetHung(true).
  int hung_calls() const;
  // Writes made by any lock (creates and updates) and reads, for request-count checks.
  int writes() const;
  int reads() const;
  // Overwrites the record as an operator or another client would (notifies watchers).
  void Put(const LeaderElectionRecord& record);

 private:
  friend class MemoryLock;
  // Calls run under the slot's mutex, so once a watch is cancelled no call is in flight.
  struct Watcher {
    int id = 0;
    std::mutex mu;
    bool alive = true;
    std::function<void(const ObservedRecord&)> fn;
  };
  Status Enter(Lock::Timeout timeout);  // fault injection shared by every call
  ObservedRecord WriteLocked(const LeaderElectionRecord& record);
  void Notify(const ObservedRecord& record);

  mutable std::mutex mu_;
  std::condition_variable hung_cv_;
  std::optional<ObservedRecord> record_;
  int64_t next_version_ = 1;
  Status failure_;
  bool hung_ = false;
  int hung_calls_ = 0;
  int writes_ = 0;
  int reads_ = 0;
  int next_watcher_ = 0;
  std::vector<std::shared_ptr<Watcher>> watchers_;
  // Watch delivery in version order (Notify).
  std::mutex delivery_mu_;
  std::map<int64_t, ObservedRecord> undelivered_;
  int64_t next_delivery_ = 1;
  bool delivering_ = false;
};

class MemoryLock final : public Lock {
 public:
  MemoryLock(std::shared_ptr<MemoryLockStore> store, std::string identity,
             bool supports_watch = true);
  Result<ObservedRecord> Get(Timeout timeout) override;
  Result<ObservedRecord> Create(const LeaderElectionRecord& record, Timeout timeout) override;
  Result<ObservedRecord> Update(const LeaderElectionRecord& record, Timeout timeout) override;
  Result<ObservedRecord> UpdateAt(const LeaderElectionRecord& record, int64_t version,
                                  Timeout timeout) override;
  std::string Identity() const override { return identity_; }
  std::string Describe() const override { return "memory/" + identity_; }
  std::unique_ptr<LockWatch> Watch(std::function<void(const ObservedRecord&)> on_change) override;
  void RecordEvent(std::string_view reason, std::string_view message) override;
  std::vector<std::string> events() const;

 private:
  std::shared_ptr<MemoryLockStore> store_;
  std::string identity_;
  bool supports_watch_;
  mutable std::mutex mu_;
  int64_t seen_version_ = 0;  // the version this lock last read or wrote
  std::vector<std::string> events_;
};

// "holder|duration|acquire|renew|transitions|strategy|preferred": the raw form MemoryLock uses.
std::string SerializeRecordForMemoryLock(const LeaderElectionRecord& record);

}  // namespace tenure
