// MemoryLock and MemoryLockStore: an in-process Lock with CAS, watches and fault injection.
#include "tenure/memory_lock.h"

namespace tenure {

std::string SerializeRecordForMemoryLock(const LeaderElectionRecord& r) {
  auto micros = [](std::chrono::system_clock::time_point t) {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count());
  };
  return r.holder_identity + "|" + std::to_string(r.lease_duration_seconds) + "|" +
         micros(r.acquire_time) + "|" + micros(r.renew_time) + "|" +
         std::to_string(r.leader_transitions) + "|" + r.strategy + "|" + r.preferred_holder;
}

std::optional<ObservedRecord> MemoryLockStore::current() const {
  std::lock_guard lock(mu_);
  return record_;
}

void MemoryLockStore::SetFailure(Status status) {
  std::lock_guard lock(mu_);
  failure_ = std::move(status);
}

void MemoryLockStore::SetHung(bool hung) {
  {
    std::lock_guard lock(mu_);
    hung_ = hung;
  }
  hung_cv_.notify_all();
}

int MemoryLockStore::writes() const {
  std::lock_guard lock(mu_);
  return writes_;
}

int MemoryLockStore::hung_calls() const {
  std::lock_guard lock(mu_);
  return hung_calls_;
}

int MemoryLockStore::reads() const {
  std::lock_guard lock(mu_);
  return reads_;
}

Status MemoryLockStore::Enter(Lock::Timeout timeout) {
  std::unique_lock lock(mu_);
  if (hung_) {
    ++hung_calls_;
    // A far timeout must not overflow the deadline: a year is forever here.
    auto wait = std::min<Lock::Timeout>(timeout, std::chrono::hours(24 * 365));
    bool released =
        hung_cv_.wait_until(lock, std::chrono::steady_clock::now() + wait, [&] { return !hung_; });
    --hung_calls_;
    if (!released) return Status::Timeout("memory lock: the simulated server did not answer");
    return Status::Unavailable("memory lock: the simulated server hung");
  }
  return failure_;
}

ObservedRecord MemoryLockStore::WriteLocked(const LeaderElectionRecord& record) {
  ++writes_;
  record_ = ObservedRecord{record, SerializeRecordForMemoryLock(record), next_version_++};
  return *record_;
}

void MemoryLockStore::Notify(const ObservedRecord& record) {
  // Writers reach here in any order once the store's mutex is released; versions are handed out
  // one by one, so each is delivered after the one before it, by whichever writer is delivering
  // (a lone writer delivers its own write before it returns).
  std::unique_lock delivery(delivery_mu_);
  undelivered_.emplace(record.version, record);
  if (delivering_) return;
  delivering_ = true;
  // A callback that throws must not leave every later event undelivered.
  struct EndDelivery {
    MemoryLockStore* store;
    std::unique_lock<std::mutex>& delivery;
    ~EndDelivery() {
      if (!delivery.owns_lock()) delivery.lock();
      store->delivering_ = false;
    }
  } end_delivery{this, delivery};
  while (!undelivered_.empty() && undelivered_.begin()->first == next_delivery_) {
    ObservedRecord next = std::move(undelivered_.begin()->second);
    undelivered_.erase(undelivered_.begin());
    ++next_delivery_;
    delivery.unlock();
    std::vector<std::shared_ptr<Watcher>> watchers;
    {
      std::lock_guard lock(mu_);
      watchers = watchers_;
    }
    for (const auto& w : watchers) {
      std::lock_guard lock(w->mu);
      if (w->alive) w->fn(next);
    }
    delivery.lock();
  }
}

void MemoryLockStore::Put(const LeaderElectionRecord& record) {
  ObservedRecord written;
  {
    std::lock_guard lock(mu_);
    written = WriteLocked(record);
  }
  Notify(written);
}

MemoryLock::MemoryLock(std::shared_ptr<MemoryLockStore> store, std::string identity,
                       bool supports_watch)
    : store_(std::move(store)), identity_(std::move(identity)), supports_watch_(supports_watch) {}

Result<ObservedRecord> MemoryLock::Get(Timeout timeout) {
  if (Status s = store_->Enter(timeout); !s.ok()) return s;
  std::optional<ObservedRecord> record;
  {
    std::lock_guard lock(store_->mu_);
    ++store_->reads_;
    record = store_->record_;
  }
  if (!record) return Status::NotFound("memory lock: no record");
  std::lock_guard lock(mu_);
  seen_version_ = record->version;
  return *record;
}

Result<ObservedRecord> MemoryLock::Create(const LeaderElectionRecord& record, Timeout timeout) {
  if (Status s = store_->Enter(timeout); !s.ok()) return s;
  ObservedRecord written;
  {
    std::lock_guard lock(store_->mu_);
    if (store_->record_) return Status::AlreadyExists("memory lock: record exists");
    written = store_->WriteLocked(record);
  }
  {
    std::lock_guard lock(mu_);
    seen_version_ = written.version;
  }
  store_->Notify(written);
  return written;
}

Result<ObservedRecord> MemoryLock::Update(const LeaderElectionRecord& record, Timeout timeout) {
  int64_t expected;
  {
    std::lock_guard lock(mu_);
    expected = seen_version_;
  }
  return UpdateAt(record, expected, timeout);
}

// Any version will do: the store itself compares it, as a server does.
Result<ObservedRecord> MemoryLock::UpdateAt(const LeaderElectionRecord& record, int64_t expected,
                                            Timeout timeout) {
  if (Status s = store_->Enter(timeout); !s.ok()) return s;
  ObservedRecord written;
  {
    std::lock_guard lock(store_->mu_);
    if (!store_->record_) return Status::NotFound("memory lock: no record");
    if (store_->record_->version != expected) {
      return Status::Conflict("memory lock: the record has been modified");
    }
    written = store_->WriteLocked(record);
  }
  {
    std::lock_guard lock(mu_);
    seen_version_ = written.version;
  }
  store_->Notify(written);
  return written;
}

namespace {
class MemoryLockWatch final : public LockWatch {
 public:
  MemoryLockWatch(std::shared_ptr<MemoryLockStore> store, std::function<void()> cancel)
      : store_(std::move(store)), cancel_(std::move(cancel)) {}
  ~MemoryLockWatch() override { cancel_(); }

 private:
  std::shared_ptr<MemoryLockStore> store_;
  std::function<void()> cancel_;
};
}  // namespace

std::unique_ptr<LockWatch> MemoryLock::Watch(std::function<void(const ObservedRecord&)> on_change) {
  if (!supports_watch_) return nullptr;
  auto watcher = std::make_shared<MemoryLockStore::Watcher>();
  watcher->fn = std::move(on_change);
  {
    std::lock_guard lock(store_->mu_);
    watcher->id = store_->next_watcher_++;
    store_->watchers_.push_back(watcher);
  }
  auto store = store_;
  return std::make_unique<MemoryLockWatch>(store, [store, watcher] {
    {
      std::lock_guard lock(watcher->mu);
      watcher->alive = false;
    }
    std::lock_guard lock(store->mu_);
    std::erase_if(store->watchers_, [&](const auto& w) { return w == watcher; });
  });
}

void MemoryLock::RecordEvent(std::string_view reason, std::string_view message) {
  std::lock_guard lock(mu_);
  events_.push_back(std::string(reason) + ": " + std::string(message));
}

std::vector<std::string> MemoryLock::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

}  // namespace tenure
