// LocalLeaseFeed: BoardOptions::lease_feed for a board inside `tenure serve`: every Lease from
// the server's own store (server::LocalCollectionWatch), not through a watch over loopback.
// At 5,000 renewals a second that watch cost the server about a tenth of a core (each renewal
// sent once more over TLS and parsed back) and the client's copy of every Lease's key.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "tenure/status.h"

namespace tenure::client {
class Subscription;
}  // namespace tenure::client
namespace tenure::server {
class Server;
}  // namespace tenure::server

namespace tenure::dashboard {

using LeaseFeed = std::function<Result<std::unique_ptr<client::Subscription>>(
    std::function<void(const std::string& type, const nlohmann::json& object)>)>;

// The feed of `server`'s Leases; `server` must outlive every subscription it makes.
LeaseFeed LocalLeaseFeed(server::Server& server);

}  // namespace tenure::dashboard
