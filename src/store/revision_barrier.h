// RevisionBarrier: "what is the backend's revision now", asked once for many concurrent readers.
// A reader needs an answer from a request sent after it arrived (a linearizable read may not use
// an older answer: a write acknowledged before the read began could be missing from it); every
// reader waiting when a request is sent shares that request's answer, so N readers arriving
// together cost one or two round trips instead of N. One request is in flight at a time.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "store/store.h"
#include "tenure/status.h"

namespace tenure::store {

class RevisionBarrier {
 public:
  // `fetch` asks the backend (one round trip) and gives up at the deadline it is passed: that of
  // the reader whose thread sends it.
  using Fetch = std::function<Result<int64_t>(Deadline)>;
  explicit RevisionBarrier(Fetch fetch) : fetch_(std::move(fetch)) {}

  // The backend's revision from a request sent after this call began (or that request's error);
  // Timeout once `deadline` passed while waiting for another reader's request.
  Result<int64_t> Current(Deadline deadline = kNoDeadline);
  // Requests sent so far, and readers waiting for another reader's request now (for tests and
  // metrics).
  uint64_t requests() const;
  size_t waiting() const;

 private:
  const Fetch fetch_;
  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  bool in_flight_ = false;
  size_t waiting_ = 0;
  uint64_t started_ = 0;   // requests sent
  uint64_t finished_ = 0;  // the number of the last request answered
  Result<int64_t> last_ = Status::Unavailable("no revision asked yet");
};

}  // namespace tenure::store
