// Which HTTP proxy a connection to an API server goes through, as client-go chooses it:
// - the kubeconfig cluster's proxy-url, when it has one (for every host, loopback included);
// - else HTTPS_PROXY (an https server) or HTTP_PROXY (an http one), upper or lower case, unless
//   NO_PROXY names the host (a name also covers its subdomains, ".name" and "*.name" only the
//   subdomains; IP addresses and CIDR ranges; "host:port" and "[v6]:port" one port; "*"
//   everything) or the host is localhost or a loopback address, which Go's proxy rules never
//   send through a proxy.
// Only http:// proxies are supported, and every connection is a CONNECT tunnel, also to a plain
// http:// API server (Go forwards those requests instead; a proxy that allows CONNECT only to
// port 443 refuses such a tunnel, and says so). user:password in the URL (percent-encoded) is
// sent as Basic Proxy-Authorization.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "client/http_connection.h"
#include "tenure/status.h"

namespace tenure::client {

using GetEnv = std::function<const char*(const char*)>;

// The proxy for `endpoint` (nullopt: connect directly); BadRequest for a proxy URL that cannot
// be used, naming where it came from.
Result<std::optional<Proxy>> ChooseProxy(const Endpoint& endpoint, const std::string& proxy_url,
                                         const GetEnv& getenv);

// Whether NO_PROXY's `list` names `host` (port `port`).
bool NoProxyMatches(const std::string& list, const std::string& host, uint16_t port);

}  // namespace tenure::client
