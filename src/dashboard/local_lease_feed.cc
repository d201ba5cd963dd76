// LocalLeaseFeed: a board's Leases from the server's own store.
#include "dashboard/local_lease_feed.h"

#include "api/kinds.h"
#include "client/kube_client.h"
#include "server/server.h"

namespace tenure::dashboard {

namespace {

class LocalSubscription final : public client::Subscription {
 public:
  explicit LocalSubscription(std::unique_ptr<server::LocalCollectionWatch> watch)
      : watch_(std::move(watch)) {}
  bool active() const override { return watch_->active(); }

 private:
  std::unique_ptr<server::LocalCollectionWatch> watch_;
};

}  // namespace

LeaseFeed LocalLeaseFeed(server::Server& server) {
  return [&server](std::function<void(const std::string&, const nlohmann::json&)> handler)
             -> Result<std::unique_ptr<client::Subscription>> {
    auto watch = server.WatchCollection(api::LeaseKind(), "v1", std::move(handler));
    if (!watch.ok()) return watch.status();
    return std::unique_ptr<client::Subscription>(new LocalSubscription(std::move(*watch)));
  };
}

}  // namespace tenure::dashboard
