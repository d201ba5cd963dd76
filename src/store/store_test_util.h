// Helpers for the store tests: a temporary directory and a thread-safe event collector that
// waits for conditions with a deadline instead of sleeping.
#pragma once

#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "store/store.h"

namespace tenure::store::test_util {

inline constexpr std::chrono::seconds kDeadline{60};

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tenure-store-XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    if (made != nullptr) path_ = made;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Collects events delivered to a watch callback.
class Collector {
 public:
  EventCallback Callback() {
    return [this](const std::vector<Event>& events) {
      std::lock_guard lock(mu_);
      ++calls_;
      events_.insert(events_.end(), events.begin(), events.end());
      cv_.notify_all();
    };
  }

  // Waits until pred(events) holds; false at the deadline.
  bool WaitFor(const std::function<bool(const std::vector<Event>&)>& pred,
               std::chrono::nanoseconds deadline = kDeadline) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, deadline, [&] { return pred(events_); });
  }
  bool WaitForCount(size_t n) {
    return WaitFor([n](const std::vector<Event>& e) { return e.size() >= n; });
  }
  bool WaitForRevision(int64_t revision) {
    return WaitFor([revision](const std::vector<Event>& e) {
      return !e.empty() && e.back().kv.mod_revision >= revision;
    });
  }

  std::vector<Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::vector<int64_t> revisions() const {
    std::lock_guard lock(mu_);
    std::vector<int64_t> out;
    for (const Event& e : events_) out.push_back(e.kv.mod_revision);
    return out;
  }
  size_t calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Event> events_;
  size_t calls_ = 0;
};

inline WriteOp Create(std::string key, std::string value) {
  return WriteOp{WriteOp::Kind::kCreate, std::move(key), std::move(value), 0};
}
inline WriteOp Update(std::string key, std::string value, int64_t expected = 0) {
  return WriteOp{WriteOp::Kind::kUpdate, std::move(key), std::move(value), expected};
}
inline WriteOp Delete(std::string key, int64_t expected = 0) {
  return WriteOp{WriteOp::Kind::kDelete, std::move(key), "", expected};
}

}  // namespace tenure::store::test_util
