// EtcdStore: the Store contract on an etcd v3 cluster (etcd's gRPC API), as kube-apiserver keeps
// its objects: several tenure replicas on one etcd cluster share one store.
//
// Mapping:
// - Store keys live under "/registry" (ResourceApi's layout). In etcd that root is replaced by
//   `prefix` (default "/registry", so etcd keys are "/registry/<resource>/<ns>/<name>"); store
//   keys outside "/registry" are rejected with BadRequest.
// - The store revision is etcd's revision; an object's mod_revision is its resourceVersion.
// - Create is Txn(create_revision == 0 → put), Update/Delete with an expected revision
//   Txn(mod_revision == expected → put/delete), unconditional ones Txn(create_revision > 0 → ...).
//   A failed compare answers AlreadyExists, NotFound or Conflict like SqliteStore. Reads are
//   linearizable: they see every write acknowledged by any replica (with reads_from_watch_cache,
//   from the replica's watch-fed copy once it reached etcd's current revision).
// - Watches come from etcd, never from local writes: ONE etcd watch on the whole prefix (with
//   prev_kv, so DELETED events carry the last value and updates the value they replaced) feeds
//   a WatchHub that fans out to every Store::Watch. The hub's history starts at Open. A watch
//   from a revision older than the hub's history or compacted in etcd fails with Gone. Other
//   writers of the prefix must write one key per revision (tenure replicas do): the hub keeps
//   one event per revision.
//
// Known values: the newest version of a key this replica wrote or watched is known without a
// read (KnownValue: the watch-fed copy, and this replica's own writes until the watch brings
// them), so an update whose expected revision is that version needs no read first (kube-apiserver
// starts GuaranteedUpdate from its watch cache the same way); the Txn still compares the revision.
// Failures: every operation has a deadline (request_timeout, or the caller's Deadline when that
// comes first), which a read's steps share (the revision request, the wait for the copy, the read
// from etcd; a List's pages after the first get a request_timeout each); with several endpoints an
// attempt that may be repeated elsewhere also ends after attempt_timeout, or after its even share
// of what is left among the members not tried yet. Reads retry on another endpoint until the
// deadline. A write is retried on another endpoint when it was certainly not applied (no endpoint
// connected yet, or etcd answered "no leader"); an update or delete that names the revision it
// replaces also after an attempt that got no answer or lost its connection: at most one copy can
// ever pass the compare, since revisions never repeat. When the resend's compare fails and the key
// holds exactly the written value, the write is answered as applied (indistinguishable from it),
// with the key's version; otherwise its outcome is unknown. A write whose outcome is unknown fails
// with ServiceUnavailable or Timeout saying that it may have been applied, never with a guessed
// result (never a Conflict). The hub's etcd watch reconnects to any live endpoint and resumes after
// the last delivered revision (also when the stream falls silent: see watch_silence_limit), so
// watchers see no gap or duplicate across a member's death (unless etcd compacted past that
// revision meanwhile: then the gap is logged to stderr). TLS: endpoints "https://..." use ca_file
// to verify etcd and cert_file/key_file (optional) as client certificate. Threads: a write's first
// attempt goes out with gRPC's callback API (at most max_writes_in_flight at once) and its callback
// runs on a gRPC thread; resends, and writes waiting for a member, run on max_writes_in_flight
// writer threads with the blocking API. Concurrent writes may be applied in any order. Event
// callbacks run on the WatchHub dispatcher. Both may call into the store but must not block (no
// WriteSync). Get, List and CurrentRevision block for up to one etcd round trip. The destructor
// fails queued writes with ServiceUnavailable (unsent), waits for the ones being sent (bounded by
// their deadline) and stops the watch; WatchHandles may outlive the store.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"
#include "store/watch_hub.h"
#include "tenure/clock.h"
#include "tenure/status.h"

namespace tenure::store {

struct EtcdStoreOptions {
  // "http://host:port", "https://host:port" or "host:port" (plain); at least one.
  std::vector<std::string> endpoints;
  std::string prefix = "/registry";
  std::string ca_file;    // required for https endpoints
  std::string cert_file;  // client certificate (with key_file), optional
  std::string key_file;
  std::chrono::milliseconds request_timeout{5000};  // one operation, failover included
  // With several endpoints, the most one attempt of a read, or of a write that may be resent
  // (see Failures), takes on one member before the operation goes to the next (the last member
  // of the first round gets all that is left): a member that is paused or cut off while its
  // connection stays open costs this, not the whole request_timeout. Such a member is then
  // avoided for request_timeout while another one is ready.
  std::chrono::milliseconds attempt_timeout{1000};
  // The etcd watch asks for a progress report once nothing arrived for a quarter of this (a live
  // member answers at once, events or not); a stream that stays silent this long (a member paused
  // or cut off while its connection stays open, which gRPC's keepalive notices only after 15 s)
  // is given up, the member avoided like one that let an attempt run out, and the watch resumes
  // on another member.
  std::chrono::milliseconds watch_silence_limit{2000};  // at least 100 ms
  // Events the hub keeps for watches from a past revision: at most watch_history_capacity and
  // watch_history_bytes, and beyond watch_history_min no more than watch_history_per_object per
  // object under the prefix (counted at Open, then from the watch; see WatchHub::CapacityFor).
  size_t watch_history_capacity = 100000;
  size_t watch_history_bytes = WatchHub::kDefaultHistoryBytes;
  size_t watch_history_min = 10000;
  size_t watch_history_per_object = 2;
  // Events younger than this stay beyond the per-object bound (WatchHub::SetHistoryMinAge).
  std::chrono::nanoseconds watch_history_min_age = std::chrono::seconds(10);
  // First attempts in flight at once; more wait in a queue. Resends run on as many writer
  // threads, so at most twice this many Txns are in flight.
  size_t max_writes_in_flight = 32;
  // Keys whose newest version is remembered to spare an update's read (KnownValues); 0: none.
  size_t known_values_capacity = 100000;
  // Keys per Range request of a List (all pages read the same revision).
  int64_t list_page_size = 1000;
  // Consistent reads (Get, and List of the current state) answered from this replica's copy of
  // every key under the prefix (ResidentState: listed at Open, then kept by the watch) once the
  // copy has reached the revision etcd names at the read, as kube-apiserver's
  // ConsistentListFromCache does. That revision is asked once for all the reads waiting at the
  // time (RevisionBarrier), so concurrent reads share one small request, and a List does not
  // travel from etcd. The watch then covers etcd's whole key space, so that every revision
  // reaches it (in an etcd shared with other applications, their writes reach it too and are
  // dropped). false: every read goes to etcd, and the watch covers the prefix only.
  bool reads_from_watch_cache = true;
  // How long a read waits for the copy to reach etcd's revision before it reads from etcd.
  std::chrono::milliseconds watch_cache_wait{3000};
  // etcd keeps every revision until compacted. Like kube-apiserver (--etcd-compaction-interval,
  // same "compact_rev_key" protocol, so replicas and apiservers on one etcd agree), every
  // interval the revision noted one interval earlier is compacted, once per interval across all
  // replicas. Zero: never (someone else must compact, or etcd fills its quota).
  std::chrono::nanoseconds compaction_interval = std::chrono::minutes(5);
  std::shared_ptr<Clock> clock;  // paces compaction; null: the real clock
};

// Splits "URL,URL,..." (spaces ignored); BadRequest when empty or an item is not an endpoint.
Result<std::vector<std::string>> ParseEtcdEndpoints(std::string_view text);

class EtcdStore : public Store {
 public:
  // Connects (waiting up to request_timeout for a first endpoint) and starts the watch.
  static Result<std::unique_ptr<EtcdStore>> Open(const EtcdStoreOptions& options);
  ~EtcdStore() override;

  EtcdStore(const EtcdStore&) = delete;
  EtcdStore& operator=(const EtcdStore&) = delete;

  void Close() override;
  Result<KeyValue> Get(std::string_view key) override;
  Result<KeyValue> GetBefore(std::string_view key, Deadline deadline) override;
  // From the versions this replica wrote or saw on its watch (see KnownValues).
  std::optional<KeyValue> KnownValue(std::string_view key, int64_t mod_revision) override;
  using Store::List;
  Result<ListResult> List(std::string_view prefix, const ListOptions& options) override;
  // Asks etcd (the store's revision includes every replica's writes). 0 when unreachable.
  int64_t CurrentRevision() override;
  bool ReadsBlock() const override { return true; }
  void Write(WriteOp op, WriteCallback done) override;
  Result<std::unique_ptr<WatchHandle>> Watch(std::string_view prefix, int64_t from_revision,
                                             EventCallback on_events) override;

  // Compacts etcd's history before `revision` (all keys of the cluster, not just the prefix).
  Status Compact(int64_t revision);
  // The endpoint the store currently sends requests to.
  std::string CurrentEndpoint() const;
  // The endpoint its etcd watch reads from (last connected to); "" before the first.
  std::string WatchEndpoint() const;

  // How this replica answered consistent reads so far (reads_from_watch_cache).
  struct ReadCounts {
    uint64_t from_cache = 0;         // answered from the watch-fed copy
    uint64_t from_etcd = 0;          // the copy was not serving or did not catch up in time
    uint64_t revision_requests = 0;  // revision requests sent for them (shared by many reads)
    uint64_t copy_loads = 0;         // listings of the copy: at Open, and after each missed gap
  };
  ReadCounts reads() const;

  struct Impl;

 private:
  explicit EtcdStore(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace tenure::store
