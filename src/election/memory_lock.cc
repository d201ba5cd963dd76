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

Status MemoryLockStore::Enter() {
  std::unique_lock lock(mu_);
  if (hung_) {
    ++hung_calls_;
    hung_cv_.wait(lock, [&] { return !hung_; });
    --hung_calls_;
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
  std::vector<std::shared_ptr<Watcher>> watchers;
  {
    std::lock_guard lock(mu_);
    watchers = watchers_;
  }
  for (const auto& w : watchers) {
    std::lock_guard lock(w->mu);
    if (w->alive) w->fn(record);
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

Result<ObservedRecord> MemoryLock::Get(Timeout) {
  if (Status s = store_->Enter(); !s.ok()) return s;
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

Result<ObservedRecord> MemoryLock::Create(const LeaderElectionRecord& record, Timeout) {
  if (Status s = store_->Enter(); !s.ok()) return s;
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

Result<ObservedRecord> MemoryLock::Update(const LeaderElectionRecord& record, Timeout) {
  if (Status s = store_->Enter(); !s.ok()) return s;
  int64_t expected;
  {
    std::lock_guard lock(mu_);
    expected = seen_version_;
  }
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
