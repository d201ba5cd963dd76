// GuaranteedUpdate: the attempts of one update or patch, until one ends the request.
#include "server/guaranteed_update.h"

namespace tenure::server {
namespace {

void RunAttempts(const std::shared_ptr<const GuaranteedUpdateOptions>& loop, bool first) {
  for (;; first = false) {
    UpdateStep step = loop->attempt(first);
    if (step.kind == UpdateStep::Kind::kAnswered) return;
    if (step.kind == UpdateStep::Kind::kReadAgain) {
      // A read that blocks (etcd) is not done on the thread the first attempt ran on, which may
      // be the connection's (admission.h).
      if (!loop->store->ReadsBlock()) continue;
      return loop->responder->Post([loop] { RunAttempts(loop, /*first=*/false); });
    }
    bool again_on_conflict =
        step.again_on_conflict && loop->clock->now() - loop->received < kConflictRetryWindow;
    bool again_on_not_found = step.again_on_not_found;
    loop->store->Write(std::move(step.write), [loop, again_on_conflict,
                                               again_on_not_found](Result<store::KeyValue> r) {
      if ((again_on_conflict && r.status().IsConflict()) ||
          (again_on_not_found && r.status().IsNotFound())) {
        return loop->responder->Post([loop] { RunAttempts(loop, /*first=*/false); });
      }
      loop->written(std::move(r));
    });
    return;
  }
}

}  // namespace

void GuaranteedUpdate(GuaranteedUpdateOptions options) {
  RunAttempts(std::make_shared<const GuaranteedUpdateOptions>(std::move(options)), true);
}

}  // namespace tenure::server
