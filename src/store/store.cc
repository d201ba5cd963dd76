// Store::WriteSync: a Write that blocks until its callback runs.
#include "store/store.h"

#include <future>
#include <memory>
#include <utility>

namespace tenure::store {

Result<KeyValue> Store::WriteSync(WriteOp op) {
  auto promise = std::make_shared<std::promise<Result<KeyValue>>>();
  std::future<Result<KeyValue>> future = promise->get_future();
  Write(std::move(op),
        [promise](Result<KeyValue> result) { promise->set_value(std::move(result)); });
  return future.get();
}

}  // namespace tenure::store
