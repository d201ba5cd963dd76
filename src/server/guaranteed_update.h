// GuaranteedUpdate: the retry loop of one update or patch, as kube-apiserver's storage
// GuaranteedUpdate runs it, made asynchronous:
//
//   for (first = true;; first = false) {
//     step = attempt(first)       // read (or take a version the store knows), decide
//     answered?   -> done         // replied, failed, or handed to a create
//     read again? -> continue     // the attempt wants a fresh read (at once; with a store
//                                 // whose reads block, on a request thread: Responder::Post)
//     write with compare-and-swap
//     Conflict and the step allows it, within kConflictRetryWindow of the request's arrival,
//     or NotFound and the step allows it -> continue, on a request thread (Responder::Post)
//     else -> written(result)
//   }
//
// Only an attempt with `first` true may ask to read again, so that never loops. A write is
// redone after a conflict only while less than kConflictRetryWindow has passed since the
// request arrived (kube-apiserver: until its request timeout, 60 s by default): someone's write
// wins each round, so a patch without a resourceVersion or an unconditional update gives up only
// under a conflict storm that long.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "server/http_server.h"
#include "store/store.h"
#include "tenure/clock.h"

namespace tenure::server {

inline constexpr auto kConflictRetryWindow = std::chrono::seconds(30);

// What one attempt decided.
struct UpdateStep {
  enum class Kind { kAnswered, kReadAgain, kWrite };
  Kind kind = Kind::kAnswered;
  store::WriteOp write;             // kWrite
  bool again_on_conflict = false;   // kWrite: a Conflict starts another attempt (window allowing)
  bool again_on_not_found = false;  // kWrite: a NotFound starts another attempt

  static UpdateStep Answered() { return {}; }
  static UpdateStep ReadAgain() { return {.kind = Kind::kReadAgain}; }
  static UpdateStep Write(store::WriteOp op, bool again_on_conflict, bool again_on_not_found) {
    return {Kind::kWrite, std::move(op), again_on_conflict, again_on_not_found};
  }
};

struct GuaranteedUpdateOptions {
  // Not owned: outlives every write of the loop (a loop holding the last reference would
  // destroy the store on its own writer thread).
  store::Store* store = nullptr;
  std::shared_ptr<Clock> clock;
  Clock::TimePoint received;             // the request's arrival, on `clock`
  std::shared_ptr<Responder> responder;  // where attempts after a write run (Post)
  std::function<UpdateStep(bool first)> attempt;
  // The result of the write that ended the loop (on the store's thread).
  std::function<void(Result<store::KeyValue>)> written;
};

// Runs the first attempt now, on the calling thread.
void GuaranteedUpdate(GuaranteedUpdateOptions options);

}  // namespace tenure::server
