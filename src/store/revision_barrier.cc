// RevisionBarrier: one revision request shared by the consistent reads waiting for it.
#include "store/revision_barrier.h"

namespace tenure::store {

Result<int64_t> RevisionBarrier::Current(Deadline deadline) {
  std::unique_lock lock(mu_);
  // Any request numbered `need` or later was sent after now.
  const uint64_t need = started_ + 1;
  while (finished_ < need) {
    if (in_flight_) {
      ++waiting_;
      bool late = false;
      if (deadline == kNoDeadline) {
        done_cv_.wait(lock);
      } else {
        late = done_cv_.wait_until(lock, deadline) == std::cv_status::timeout;
      }
      --waiting_;
      if (late) return Status::Timeout("no revision within the read's deadline");
      continue;
    }
    in_flight_ = true;
    const uint64_t mine = ++started_;
    lock.unlock();
    Result<int64_t> answer = fetch_(deadline);
    lock.lock();
    in_flight_ = false;
    finished_ = mine;
    last_ = std::move(answer);
    done_cv_.notify_all();
  }
  return last_;
}

uint64_t RevisionBarrier::requests() const {
  std::lock_guard lock(mu_);
  return started_;
}

size_t RevisionBarrier::waiting() const {
  std::lock_guard lock(mu_);
  return waiting_;
}

}  // namespace tenure::store
