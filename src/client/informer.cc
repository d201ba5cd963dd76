#include "client/informer.h"

namespace tenure::client {

using nlohmann::json;

namespace {

std::pair<std::string, std::string> KeyOf(const json& object) {
  return {object.value("/metadata/namespace"_json_pointer, std::string()),
          object.value("/metadata/name"_json_pointer, std::string())};
}

// Orders two versions of one object: <0 when `a` is older. resourceVersions are opaque to
// clients, but tenure and etcd-backed servers use one increasing integer; 0 when either is not
// one (then the newest arrival wins).
int CompareVersions(const json& a, const json& b) {
  std::string ra = a.value("/metadata/resourceVersion"_json_pointer, std::string());
  std::string rb = b.value("/metadata/resourceVersion"_json_pointer, std::string());
  try {
    unsigned long long va = std::stoull(ra), vb = std::stoull(rb);
    return va < vb ? -1 : va > vb ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

}  // namespace

Informer::Informer(KubeClient& client, std::string collection_path, Handler handler)
    : handler_(std::move(handler)) {
  subscription_ = client.WatchCollection(
      collection_path,
      [this](const std::string& type, const json& object) { OnEvent(type, object); });
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
  std::string delivered = type;
  json subject = object;
  {
    std::lock_guard lock(mu_);
    auto it = objects_.find(key);
    if (type == "DELETED") {
      if (it == objects_.end()) return;
      subject = std::move(it->second);  // a relist reports a deletion with the name only
      objects_.erase(it);
    } else {
      // Older than what Remember took in: that write's own event is still to come.
      if (it != objects_.end() && CompareVersions(object, it->second) < 0) return;
      delivered = it == objects_.end() ? "ADDED" : "MODIFIED";
      objects_[key] = object;
    }
  }
  handler_(delivered, subject);
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
  return it->second;
}

std::vector<json> Informer::List(const std::function<bool(const json&)>& keep) const {
  std::vector<json> out;
  std::lock_guard lock(mu_);
  for (const auto& [key, object] : objects_) {
    if (!keep || keep(object)) out.push_back(object);
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
  if (it == objects_.end() || CompareVersions(it->second, object) < 0) objects_[key] = object;
}

}  // namespace tenure::client
