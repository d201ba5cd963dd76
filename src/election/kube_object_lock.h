// KubeObjectLock: what LeaseLock and ConfigMapLock share. The record lives in one Kubernetes
// object; the lock keeps the object it last read or wrote and updates it with its
// resourceVersion (optimistic concurrency). It also keeps the newest object its watch delivered,
// for UpdateAt (kept apart: an Update must never pick up a version its caller did not decide on).
// Subclasses only say where the record sits in the object. Events go out on a background thread so
// a slow server never blocks the elector. Made only by NewLeaseLock / NewConfigMapLock (owned by a
// shared_ptr: a watch handle keeps its lock alive).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "api/object_members.h"
#include "client/event_recorder.h"
#include "client/kube_client.h"
#include "tenure/kube_locks.h"

namespace tenure {

class KubeObjectLock : public Lock, public std::enable_shared_from_this<KubeObjectLock> {
 public:
  ~KubeObjectLock() override;

  Result<ObservedRecord> Get(Timeout timeout) override;
  Result<ObservedRecord> Create(const LeaderElectionRecord& record, Timeout timeout) override;
  Result<ObservedRecord> Update(const LeaderElectionRecord& record, Timeout timeout) override;
  Result<ObservedRecord> UpdateAt(const LeaderElectionRecord& record, int64_t version,
                                  Timeout timeout) override;
  std::string Identity() const override { return options_.identity; }
  std::string Describe() const override { return options_.namespace_ + "/" + options_.name; }
  std::unique_ptr<LockWatch> Watch(std::function<void(const ObservedRecord&)> on_change) override;
  void RecordEvent(std::string_view reason, std::string_view message) override;

 protected:
  // The record lives in the object `options.name` of `kind` (at apiVersion `version`).
  KubeObjectLock(std::shared_ptr<Cluster> cluster, KubeLockOptions options,
                 const api::KindInfo& kind, std::string version);

  // A new object holding `record`.
  virtual nlohmann::json NewObject(const LeaderElectionRecord& record) const = 0;
  // The top-level member of an object that holds the record ("spec", "metadata"): a write sends
  // the object as it was read but for that member (and the metadata's labels).
  virtual const char* RecordMember() const = 0;
  // Writes `record` into that member of an existing object (null when the object has none).
  virtual void PutRecord(nlohmann::json& member, const LeaderElectionRecord& record) const = 0;
  // The same on the member's JSON text ("" when the object has none), without a tree: nullopt
  // when this lock cannot (PutRecord then does it). A renewal's fast path.
  virtual std::optional<std::string> PutRecordText(std::string_view member,
                                                   const LeaderElectionRecord& record) const {
    (void)member;
    (void)record;
    return std::nullopt;
  }
  // The record in the record member of an object (null when it has none), and its raw form, into
  // out.record and out.raw (an object without one holds the empty record).
  virtual void ReadRecord(nlohmann::json member, ObservedRecord& out) const = 0;

  const KubeLockOptions& options() const { return options_; }

 private:
  // An object kept for the next write: its text without metadata.managedFields (an update that
  // omits them keeps the stored ones, as kube's field manager starts from the live object's), read
  // into its top-level members, so a renewal sends it back with only its record member rewritten
  // and reads the reply without building a tree of it.
  struct KeptText {
    std::string text;
    std::vector<api::ObjectMember> members;
    int64_t version = 0;
    bool has_labels = true;  // carries every label of the options
  };
  // An object's text as kept; Internal when it is not a JSON object or its version is not one.
  Result<KeptText> Keep(std::string_view object) const;
  // JSON text parsed; null when it is not JSON.
  static nlohmann::json ParseOrNull(std::string_view text);
  // The member `key` of a kept object parsed (null when it has none).
  static nlohmann::json MemberOf(const KeptText& kept, std::string_view key);
  // The record of a kept object.
  ObservedRecord RecordOf(const KeptText& kept) const;
  // Takes in what the server returned; a reply whose record cannot be read is not kept. The
  // reply to a write of this lock (`own_write`) also tells its watch to skip that write's echo.
  Result<ObservedRecord> Remember(Result<std::string> reply, bool own_write);
  // PUTs `base` with `record` in it: a compare-and-swap on base's resourceVersion.
  Result<ObservedRecord> Put(const KeptText& base, const LeaderElectionRecord& record,
                             Timeout timeout);
  // Internal: a version the server sent that is not one (`shown` as it came).
  Status NotAVersion(std::string_view shown) const;
  // Puts the options' labels on an object's metadata about to be written.
  void AddLabels(nlohmann::json& metadata) const;

  std::shared_ptr<Cluster> cluster_;
  KubeLockOptions options_;
  const api::KindInfo& kind_;
  const std::string version_;
  std::string collection_path_;  // ".../namespaces/NS/leases", segments encoded
  std::string object_path_;      // collection_path_ + "/NAME"
  std::string watch_path_;       // collection_path_, with a label selector for the labels
  Status invalid_;               // labels the server would refuse: every call fails with it
  std::mutex mu_;
  // The object as last read or written, never changed once kept: a write reads it without a copy.
  std::shared_ptr<const KeptText> cached_;
  // The newest object the watch delivered naming another holder.
  std::shared_ptr<const KeptText> watched_;
  // The newest version this lock wrote: the watch skips events at or below it (the echoes of
  // its own writes), unparsed. Not raised by reads: a read's caller may not observe what it
  // read, and must not lose the watch's report of it.
  std::shared_ptr<std::atomic<uint64_t>> known_version_ =
      std::make_shared<std::atomic<uint64_t>>(0);
  client::EventRecorder events_;
};

}  // namespace tenure
