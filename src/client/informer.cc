// Informer: a local copy of one collection kept current by a shared watch (parsed or as text).
#include "client/informer.h"

#include "api/json_text.h"
#include "client/resource_version.h"

namespace tenure::client {

using nlohmann::json;

namespace {

std::pair<std::string, std::string> KeyOf(const json& object) {
  return {object.value("/metadata/namespace"_json_pointer, std::string()),
          object.value("/metadata/name"_json_pointer, std::string())};
}

}  // namespace

Informer::Informer(KubeClient& client, std::string collection_path, Handler handler, Keep keep,
                   ObjectFilter wants)
    : handler_(std::move(handler)), keep_(keep) {
  subscription_ = client.WatchCollection(
      collection_path,
      [this](const std::string& type, const json& object) { OnEvent(type, object); },
      std::move(wants));
}

Informer::~Informer() { Stop(); }

void Informer::Stop() {
  std::unique_ptr<Subscription> subscription;
  {
    std::lock_guard lock(mu_);
    subscription.swap(subscription_);
  }
  subscription.reset();
}

void Informer::OnEvent(const std::string& type, const json& object) {
  if (type == "SYNCED") {
    {
      std::lock_guard lock(mu_);
      synced_ = true;
    }
    handler_(type, object);
    return;
  }
  Key key = KeyOf(object);
  if (type == "DELETED") {
    json last;
    {
      std::lock_guard lock(mu_);
      auto it = objects_.find(key);
      if (it == objects_.end()) return;
      last = Object(it->second);
      objects_.erase(it);
    }
    // A relist reports a deletion with the name only: hand over the last known object.
    handler_(type, last);
    return;
  }
  bool known;
  {
    std::lock_guard lock(mu_);
    known = objects_.count(key) > 0;
    // Older than what Remember took in: that write's own event is still to come.
    if (!Store(key, object)) return;
  }
  handler_(known ? "MODIFIED" : "ADDED", object);
}

bool Informer::Store(const Key& key, const json& object) {
  std::optional<uint64_t> version = ResourceVersionOf(object);
  auto it = objects_.find(key);
  if (it != objects_.end() && KnownOlder(version, it->second.version)) return false;
  Stored& stored = objects_[key];
  stored.version = version;
  if (keep_ == Keep::kParsed) {
    stored.object = object;
  } else {
    stored.text = api::DumpJson(object);  // the shared watch leaves managedFields out
    stored.text.shrink_to_fit();          // kept for long: without the room left by appending
  }
  return true;
}

json Informer::Object(const Stored& stored) const {
  return keep_ == Keep::kParsed ? stored.object : api::ParseJsonOrThrow(stored.text);
}

bool Informer::synced() const {
  std::lock_guard lock(mu_);
  return synced_;
}

bool Informer::active() const {
  std::lock_guard lock(mu_);
  return subscription_ && subscription_->active();
}

std::optional<json> Informer::Get(const std::string& namespace_, const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = objects_.find({namespace_, name});
  if (it == objects_.end()) return std::nullopt;
  return Object(it->second);
}

std::vector<json> Informer::List(const std::function<bool(const json&)>& keep) const {
  std::vector<json> out;
  std::lock_guard lock(mu_);
  for (const auto& [key, stored] : objects_) {
    if (keep_ == Keep::kParsed) {
      if (!keep || keep(stored.object)) out.push_back(stored.object);
    } else {
      json object = api::ParseJsonOrThrow(stored.text);
      if (!keep || keep(object)) out.push_back(std::move(object));
    }
  }
  return out;
}

size_t Informer::size() const {
  std::lock_guard lock(mu_);
  return objects_.size();
}

void Informer::Remember(const json& object) {
  Key key = KeyOf(object);
  std::lock_guard lock(mu_);
  auto it = objects_.find(key);
  // Unlike a watch event, a reply replaces the copy only when it is known to be newer.
  if (it == objects_.end() || KnownOlder(it->second.version, ResourceVersionOf(object))) {
    Store(key, object);
  }
}

void Informer::Forget(const std::string& namespace_, const std::string& name) {
  std::lock_guard lock(mu_);
  objects_.erase({namespace_, name});
}

}  // namespace tenure::client
