// Board: what the dashboard knows about a cluster's leader elections, kept current by watches.
//
// Every Lease and LeaseCandidate of every namespace (shared watches of one KubeClient), each
// Lease's terms (TermLedger) kept across restarts in a TermArchive, the Events of the Leases
// someone is looking at, and a summary of the server (/version, /metrics). Views are JSON
// documents for the dashboard's page (docs/dashboard.md describes them).
//
// Every change bumps the board's version, and each Lease remembers the version of its last
// change, so that a stream sends only what changed since its last message. A state that changes
// with time alone (held -> expiring -> expired) is a change too: Tick finds it.
//
// Threads: the watches' handlers apply their events; a ticker thread brings time-dependent
// states up to date (options.tick) and writes the archive (every options.refresh); a refresher
// thread reads the server summary and the Events of the Leases in view (every options.refresh,
// and soon after a Lease comes into view), so that a slow server never holds back the states. Views
// may be read from any thread and never wait for the network. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/types.h"
#include "dashboard/lease_status.h"
#include "dashboard/local_lease_feed.h"
#include "dashboard/term_archive.h"
#include "dashboard/term_ledger.h"
#include "tenure/clock.h"

namespace tenure::client {
class KubeClient;
class Subscription;
}  // namespace tenure::client

namespace tenure::dashboard {

struct BoardOptions {
  std::shared_ptr<Clock> clock = Clock::Real();
  // The term history's file; "": kept in memory only.
  std::string archive_path;
  TermArchiveOptions archive;
  std::chrono::milliseconds tick{250};
  // How often the server summary and the Events in view are read again.
  std::chrono::milliseconds refresh{2000};
  // Shown as where the data comes from ("this tenure serve", a kubeconfig's server URL).
  std::string source;
  // Where the Leases come from: subscribes the handler to every Lease with the events of
  // client::KubeClient::WatchCollection, and RESET (server/local_collection_watch.h: the state
  // starts over; a Lease not delivered again before SYNCED is gone). Empty: the client's shared
  // watch of every Lease. `tenure serve` reads its own store with it.
  LeaseFeed lease_feed;
};

struct OverviewFilter {
  std::string namespace_;  // "": every namespace
  std::string search;      // a substring of the namespace, name or holder; "": all
  size_t limit = 500;      // rows at most, in namespace and name order
};

class Board {
 public:
  // Watches the cluster through `client` (which must allow list and watch of Leases and
  // LeaseCandidates, and get of Events; /version and /metrics are used when allowed).
  static Result<std::unique_ptr<Board>> Start(std::shared_ptr<client::KubeClient> client,
                                              BoardOptions options);
  // Without a cluster: the caller feeds objects (tests). The archive is opened all the same.
  static Result<std::unique_ptr<Board>> Detached(BoardOptions options);
  ~Board();
  // Ends the watches and the board's threads, writes the archive a last time and closes it (the
  // views stay readable).
  void Stop();

  // One watch event of a Lease or LeaseCandidate ("ADDED", "MODIFIED", "DELETED", "SYNCED").
  void ApplyLease(const std::string& type, const nlohmann::json& object);
  void ApplyCandidate(const std::string& type, const nlohmann::json& object);
  // Brings time-dependent states up to `now` (the board's thread calls it every tick).
  void Tick();

  uint64_t version() const;
  // The rows of `filter`'s window (its first `limit` matches) changed after `since` (every row
  // when 0); `shown` lists the keys in the window, so that a stream can tell which left it.
  struct OverviewDelta {
    nlohmann::json document;
    std::set<LeaseKey> shown;
  };
  // Rows that entered the window since `shown_before` (when given) come whatever their version.
  OverviewDelta Overview(const OverviewFilter& filter, uint64_t since,
                         const std::set<LeaseKey>* shown_before = nullptr) const;
  // One Lease with its terms, renewal cadence, candidates, the controller's choice and Events;
  // nullopt when neither the Lease nor its history is known. `changed` (optional) gets the
  // version of its last change.
  std::optional<nlohmann::json> Lease(const LeaseKey& key, uint64_t* changed = nullptr) const;
  nlohmann::json Server() const;

  // Someone looks at this Lease: its Events are read now and every refresh while the interest
  // lasts (counted; Forget each Watch).
  void Watch(const LeaseKey& key);
  void Forget(const LeaseKey& key);

  // Waits until the version passes `after` or `timeout` passes; the version then.
  uint64_t WaitForChange(uint64_t after, std::chrono::milliseconds timeout) const;

 private:
  // What the board keeps of a Lease: its spec and version, nothing else, in few bytes (it holds
  // every Lease of a cluster): absent members marked by flags, the coordinated ones (rare) apart.
  class LeaseView {
   public:
    LeaseView(api::LeaseSpec spec, std::string resource_version, bool server_identity);
    api::LeaseSpec spec() const;
    const std::string& holder() const { return holder_; }  // "" when absent
    const std::string& resource_version() const { return resource_version_; }
    bool server_identity() const { return server_identity_; }

   private:
    struct Coordinated {
      std::optional<std::string> strategy;
      std::optional<std::string> preferred_holder;
    };
    enum Present : uint8_t {
      kHolder = 1,
      kDuration = 2,
      kAcquireTime = 4,
      kRenewTime = 8,
      kTransitions = 16,
    };
    std::string holder_;
    std::string resource_version_;
    api::Timestamp acquire_time_{};
    api::Timestamp renew_time_{};
    int32_t lease_duration_seconds_ = 0;
    int32_t lease_transitions_ = 0;
    uint8_t present_ = 0;
    bool server_identity_ = false;  // an API server's identity Lease (counts the replicas)
    std::unique_ptr<const Coordinated> coordinated_;  // none when neither is set
  };
  struct Entry {
    std::optional<LeaseView> lease;  // none: known from history only (deleted)
    TermLedger ledger;
    LeaseState state = LeaseState::kReleased;  // as of the last change or tick
    bool archive_dirty = false;
    bool listed = true;  // delivered since the feed's last RESET
    uint64_t changed = 0;
    std::optional<api::Timestamp> scheduled;   // its place in schedule_
    std::optional<api::Timestamp> deleted_at;  // the Lease was deleted then
    api::Timestamp archived_renewal{};         // the open term's last renewal as last written
  };
  explicit Board(BoardOptions options);
  Status OpenArchive();
  // The Lease of `it` is gone (deleted, or not listed again after a RESET).
  void EndLease(std::map<LeaseKey, Entry>::iterator it, api::Timestamp now);
  void StartThreads();
  // Ticks states and writes the archive (no network).
  void RunTicker(std::stop_token stop);
  // Reads the server summary and the Events in view (network calls, each up to 5 s).
  void RunRefresher(std::stop_token stop);
  // Watches the LeaseCandidates once discovery shows a served version.
  void WatchCandidates();
  void Touch(Entry& entry);  // under mu_
  // The watch is connected and has listed (always for a board without a cluster); under mu_.
  bool Live() const;
  // Puts the entry in schedule_ at its next change by time alone (under mu_). `key` is the
  // entries_ map's own key: schedule_ points at it.
  void Reschedule(const LeaseKey& key, Entry& entry, api::Timestamp now);
  void Refresh(std::stop_token stop);  // the server summary and the Events in view
  // The changed histories (every open term's with `all_open`); then drops from memory the
  // deleted Leases whose history is written and that nobody looks at. No lock held.
  void WriteArchive(bool all_open);
  nlohmann::json RowOf(const LeaseKey& key, const Entry& entry) const;
  nlohmann::json CandidatesOf(const LeaseKey& key, const Entry& entry) const;

  BoardOptions options_;
  std::shared_ptr<client::KubeClient> client_;
  std::string candidate_version_;  // the LeaseCandidate version watched; "" none

  mutable std::mutex mu_;
  mutable std::condition_variable changed_cv_;
  std::condition_variable_any wake_;  // the refresher: a Lease came into view
  bool refresh_now_ = false;
  uint64_t version_ = 0;
  std::map<LeaseKey, Entry> entries_;
  // When each Lease's state changes by time alone (expiring, expired, its term ended): Tick
  // visits those that are due, not every Lease.
  // Keys point into entries_ (whose nodes do not move); an entry leaves schedule_ before it leaves
  // entries_.
  std::set<std::pair<api::Timestamp, const LeaseKey*>> schedule_;
  // LeaseCandidates by (namespace, leaseName), then by name.
  std::map<LeaseKey, std::map<std::string, api::LeaseCandidate>> candidates_;
  std::map<LeaseKey, int> interest_;
  std::map<LeaseKey, nlohmann::json> events_;
  nlohmann::json server_ = nlohmann::json::object();
  bool leases_synced_ = false;
  bool leases_reset_ = false;  // a RESET came: SYNCED ends the Leases not listed since
  bool watching_ = true;       // until Stop

  mutable std::mutex archive_mu_;  // the archive is used by one thread at a time
  std::unique_ptr<TermArchive> archive_;
  std::string archive_error_;

  // The shared watches of every Lease and LeaseCandidate (no copy of their own: the board is it).
  std::unique_ptr<client::Subscription> leases_;
  std::unique_ptr<client::Subscription> lease_candidates_;
  std::jthread ticker_;
  std::jthread refresher_;
};

}  // namespace tenure::dashboard
