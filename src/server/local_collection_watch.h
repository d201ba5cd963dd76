// LocalCollectionWatch: every object of one kind, from the server's own store, delivered in the
// process as the client's shared watch delivers a collection (client::KubeClient::
// WatchCollection), for a part of `tenure serve` that would otherwise watch its own server over
// loopback: no TLS, no HTTP and no JSON text in between, and no copy of the keys.
//
// The handler first gets each stored object as MODIFIED, then ("SYNCED", {}); then ADDED,
// MODIFIED and DELETED as the store changes. Objects come as served (resourceVersion set,
// converted from the form they are stored in) without metadata.managedFields. When the store can
// no longer say what changed (etcd compacted a deletion away), or the handler fell too far
// behind, the watch starts over: ("RESET", {}), every object again as MODIFIED, then SYNCED; an
// object not delivered between RESET and SYNCED no longer exists. An object the handler cannot
// take (it throws) is logged and skipped. While the store cannot list,
// active() is false and the watch tries again every second.
//
// The handler runs on a thread of the watch's own (the caller's for the first state), never on
// the store's: however slow it is, the store's other watchers are not held up. It must not
// destroy this watch.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "api/kinds.h"
#include "store/store.h"

namespace tenure::server {

class LocalCollectionWatch {
 public:
  using Handler = std::function<void(const std::string& type, const nlohmann::json& object)>;
  struct Options {
    // Events waiting for the handler beyond this many are dropped and the state listed again.
    size_t max_queued = 100000;
    // How long to wait before listing again when the store could not list.
    std::chrono::milliseconds list_again_after{1000};
  };

  // Delivers the first state before it returns. Fails when the store cannot list or watch.
  static Result<std::unique_ptr<LocalCollectionWatch>> Start(std::shared_ptr<store::Store> store,
                                                             const api::KindInfo& kind,
                                                             std::string version, Handler handler,
                                                             Options options);
  static Result<std::unique_ptr<LocalCollectionWatch>> Start(std::shared_ptr<store::Store> store,
                                                             const api::KindInfo& kind,
                                                             std::string version, Handler handler) {
    return Start(std::move(store), kind, std::move(version), std::move(handler), Options());
  }
  // Once it returns, the handler is not running and is never called again.
  ~LocalCollectionWatch();
  LocalCollectionWatch(const LocalCollectionWatch&) = delete;
  LocalCollectionWatch& operator=(const LocalCollectionWatch&) = delete;

  // False while the store has lost events that the watch could not list again yet.
  bool active() const { return active_.load(); }
  // How many times the watch had to start over (a lost deletion, the handler too far behind).
  uint64_t start_overs() const { return start_overs_.load(); }

 private:
  LocalCollectionWatch(std::shared_ptr<store::Store> store, const api::KindInfo& kind,
                       std::string version, Handler handler, Options options);
  // Lists and delivers the state (after RESET when `reset`) and SYNCED; the listing's revision.
  Result<int64_t> Deliver(bool reset);
  void Enqueue(const std::vector<store::Event>& events);
  void StartOverLocked();  // mu_ held
  // Runs the handler on one object (null: an empty object). What throws (a stored value that is
  // not an object, a surprise of the handler) is logged and skipped; the watch goes on.
  void Send(const char* type, const store::KeyValue* kv);
  void Run(std::stop_token stop);
  nlohmann::json Served(const store::KeyValue& kv) const;

  std::shared_ptr<store::Store> store_;
  const api::KindInfo& kind_;
  const std::string version_;
  const std::string prefix_;
  Handler handler_;
  const Options options_;
  std::atomic<bool> active_{true};
  std::atomic<uint64_t> start_overs_{0};

  std::mutex mu_;
  std::condition_variable_any wake_;
  std::deque<store::Event> queued_;
  bool start_over_ = false;      // a lost deletion or an overflow: list again
  int64_t listed_revision_ = 0;  // events up to it are in the last listing: skipped
  std::unique_ptr<store::WatchHandle> handle_;
  std::jthread thread_;
};

}  // namespace tenure::server
