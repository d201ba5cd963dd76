// ResidentState: the watch-fed copy of a store's keys that consistent reads are answered from.
#include "store/resident_state.h"

#include <algorithm>
#include <memory>

namespace tenure::store {

void ResidentState::Reset(std::vector<KeyValue> items, int64_t revision) {
  std::map<std::string_view, SharedEvent, std::less<>> data;
  for (const KeyValue& kv : items) {
    SharedEvent event = compactor_.MakeEvent(Event::Type::kCreated, kv);
    std::string_view key = event->key;
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
  // Compacted before the lock: readers wait for the copy's change only.
  std::vector<SharedEvent> stored;
  stored.reserve(events.size());
  for (const Event& e : events) stored.push_back(compactor_.MakeEvent(e.type, e.kv));
  std::vector<SharedEvent> replaced;  // released outside the lock
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < events.size(); ++i) {
    Event& e = events[i];
    SharedEvent event = std::move(stored[i]);
    const bool take = serving_ && event->mod_revision > revision_;
    auto it = take ? data_.find(std::string_view(event->key)) : data_.end();
    // The copy's replaced version is the update's previous value: shared, not a second copy.
    SharedEvent previous;
    if (it != data_.end() && e.type == Event::Type::kUpdated && e.previous &&
        it->second->mod_revision == e.previous->mod_revision) {
      previous = it->second;
    } else if (e.previous) {
      previous = WholeEvent(Event::Type::kUpdated, *e.previous);
    }
    published.push_back({event, std::move(previous), std::move(e.kv.value)});
    if (!take) continue;  // not serving, or in the copy already (a listing taken after it)
    if (event->type == Event::Type::kDeleted) {
      if (it != data_.end()) {
        replaced.push_back(std::move(it->second));
        data_.erase(it);
      }
      continue;
    }
    std::string_view key = event->key;
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
  SharedEvent event;
  {
    std::lock_guard lock(mu_);
    auto it = data_.find(key);
    if (it == data_.end()) return std::nullopt;
    event = it->second;
  }
  return event->ToKeyValue();  // rebuilt without the lock
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
  for (const SharedEvent& event : page) result.items.push_back(event->ToKeyValue());
  return result;
}

std::optional<KeyValue> ResidentState::Lookup(std::string_view key, int64_t mod_revision) const {
  SharedEvent event;
  {
    std::lock_guard lock(mu_);
    auto it = data_.find(key);
    if (it == data_.end() || it->second->mod_revision != mod_revision) return std::nullopt;
    event = it->second;
  }
  return event->ToKeyValue();
}

size_t ResidentState::size() const {
  std::lock_guard lock(mu_);
  return data_.size();
}

}  // namespace tenure::store
