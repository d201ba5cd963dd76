// ResidentState: the watch-fed copy of a store's keys that consistent reads are answered from.
#include "store/resident_state.h"

#include <algorithm>
#include <memory>

namespace tenure::store {

void ResidentState::Reset(std::vector<KeyValue> items, int64_t revision) {
  std::map<std::string_view, SharedEvent, std::less<>> data;
  for (KeyValue& kv : items) {
    auto event = std::make_shared<Event>();
    event->kv = std::move(kv);
    std::string_view key = event->kv.key;
    data.emplace_hint(data.end(), key, std::move(event));
  }
  std::lock_guard lock(mu_);
  data_.swap(data);
  revision_ = revision;
  serving_ = true;
  changed_.notify_all();
  // `data`, the old copy, is freed after the lock is released.
}

void ResidentState::Invalidate() {
  std::lock_guard lock(mu_);
  serving_ = false;
  changed_.notify_all();
}

std::vector<PublishedEvent> ResidentState::Apply(std::vector<Event> events, int64_t through) {
  std::vector<PublishedEvent> published;
  published.reserve(events.size());
  std::vector<SharedEvent> replaced;  // released outside the lock
  std::lock_guard lock(mu_);
  for (Event& e : events) {
    // Kept beside the event, never in it (a chain of them would hold every past value).
    std::shared_ptr<const KeyValue> previous = std::move(e.previous);
    const bool take = serving_ && e.kv.mod_revision > revision_;
    auto it = take ? data_.find(std::string_view(e.kv.key)) : data_.end();
    // The copy's replaced version is the update's previous value: shared, not a second copy.
    if (it != data_.end() && e.type == Event::Type::kUpdated && previous &&
        it->second->kv.mod_revision == previous->mod_revision) {
      previous = std::shared_ptr<const KeyValue>(it->second, &it->second->kv);
    }
    auto event = std::make_shared<const Event>(std::move(e));
    published.push_back({event, std::move(previous)});
    if (!take) continue;  // not serving, or in the copy already (a listing taken after it)
    if (event->type == Event::Type::kDeleted) {
      if (it != data_.end()) {
        replaced.push_back(std::move(it->second));
        data_.erase(it);
      }
      continue;
    }
    std::string_view key = event->kv.key;
    if (it == data_.end()) {
      data_.emplace(key, std::move(event));
    } else {
      // The map's key views the old event's key: re-key it with the new one.
      auto node = data_.extract(it);
      replaced.push_back(std::move(node.mapped()));
      node.key() = key;
      node.mapped() = std::move(event);
      data_.insert(std::move(node));
    }
  }
  if (serving_ && through > revision_) {  // not serving: the next Reset sets it
    revision_ = through;
    changed_.notify_all();
  }
  return published;
}

bool ResidentState::WaitFor(int64_t revision, std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mu_);
  return changed_.wait_until(lock, until, [&] { return !serving_ || revision_ >= revision; }) &&
         serving_;
}

bool ResidentState::serving() const {
  std::lock_guard lock(mu_);
  return serving_;
}

int64_t ResidentState::revision() const {
  std::lock_guard lock(mu_);
  return revision_;
}

std::optional<KeyValue> ResidentState::Get(std::string_view key) const {
  std::lock_guard lock(mu_);
  auto it = data_.find(key);
  if (it == data_.end()) return std::nullopt;
  return it->second->kv;
}

ListResult ResidentState::List(std::string_view prefix, std::string_view start_key,
                               int64_t limit) const {
  ListResult result;
  const auto max_items = static_cast<size_t>(std::max<int64_t>(limit, 0));
  // Under the lock only references to the immutable events: the watch is not held up while
  // the values are copied.
  std::vector<SharedEvent> page;
  {
    std::lock_guard lock(mu_);
    result.revision = revision_;
    for (auto it = data_.lower_bound(std::max(prefix, start_key));
         it != data_.end() && it->first.starts_with(prefix); ++it) {
      if (max_items != 0 && page.size() >= max_items) {
        ++result.remaining;
      } else {
        page.push_back(it->second);
      }
    }
  }
  result.items.reserve(page.size());
  for (const SharedEvent& event : page) result.items.push_back(event->kv);
  return result;
}

std::optional<KeyValue> ResidentState::Lookup(std::string_view key, int64_t mod_revision) const {
  std::lock_guard lock(mu_);
  auto it = data_.find(key);
  if (it == data_.end() || it->second->kv.mod_revision != mod_revision) return std::nullopt;
  return it->second->kv;
}

size_t ResidentState::size() const {
  std::lock_guard lock(mu_);
  return data_.size();
}

}  // namespace tenure::store
