// WorkQueue: the keys a controller has to reconcile, as client-go's delaying work queue. A key is
// queued at most once (adding it again keeps the earlier due time) and handed to one worker at
// a time: a key added while it is being processed is handed out again after Done. Due times are
// on the injected Clock, so tests move a FakeClock instead of sleeping. Add from any thread; Get
// from one worker thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>

#include "tenure/clock.h"

namespace tenure::coordination {

class WorkQueue {
 public:
  explicit WorkQueue(std::shared_ptr<Clock> clock);

  void Add(const std::string& key) { AddAfter(key, Clock::Duration::zero()); }
  void AddAfter(const std::string& key, Clock::Duration delay);
  // Due at `due` on the queue's clock (a time in the past is due at once).
  void AddAt(const std::string& key, Clock::TimePoint due);
  // Blocks until a key is due and not being processed; nullopt once `stop` is requested.
  std::optional<std::string> Get(std::stop_token stop);
  // Ends the processing of a key handed out by Get.
  void Done(const std::string& key);
  // Keys queued (due or not), not counting those being processed.
  size_t size() const;

 private:
  void WakeLocked();

  std::shared_ptr<Clock> clock_;
  mutable std::mutex mu_;
  std::map<std::string, Clock::TimePoint> queued_;  // key -> due time
  std::set<std::string> processing_;
  std::optional<std::stop_source> wake_;  // of the worker sleeping in Get
};

}  // namespace tenure::coordination
