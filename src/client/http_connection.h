// HttpConnection: one blocking HTTP/1.1 keep-alive connection (plain or TLS) to an API server.
// Not thread-safe: use one per thread. A failed request closes the connection; the next
// Request reconnects. Boost.Beast stays inside http_connection.cc.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tenure/status.h"

namespace tenure::client {

struct TlsOptions {
  bool enabled = false;
  std::string ca_file;  // PEM bundle to trust; empty: the system's
  std::string ca_data;  // PEM text, alternative to ca_file
  bool insecure_skip_verify = false;
  std::string server_name;          // SNI and the name checked; default: the host
  std::string cert_file, key_file;  // client certificate (optional)
  std::string cert_data, key_data;  // PEM text alternatives
};

// An HTTP proxy reached with CONNECT: the connection to the endpoint is a tunnel through it.
struct Proxy {
  std::string host;
  uint16_t port = 0;
  std::string authorization;  // a Proxy-Authorization value ("Basic ..."), or none
};

struct Endpoint {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  TlsOptions tls;
  std::optional<Proxy> proxy;
};

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

class HttpConnection {
 public:
  explicit HttpConnection(Endpoint endpoint);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends one request and reads the whole reply. Errors: Unavailable (cannot connect, connection
  // lost), Timeout. HTTP error statuses are replies, not errors.
  Result<HttpReply> Request(const std::string& method, const std::string& target,
                            const std::vector<std::pair<std::string, std::string>>& headers,
                            const std::string& body, std::chrono::milliseconds timeout);

  // Starts a streamed request (watch): sends it and reads the reply head. Then ReadLine returns
  // one newline-terminated line at a time until the stream ends (NotFound "end of stream").
  Result<HttpReply> StartStream(const std::string& target,
                                const std::vector<std::pair<std::string, std::string>>& headers,
                                std::chrono::milliseconds timeout);
  Result<std::string> ReadLine(std::chrono::milliseconds timeout);
  void Close();
  // Whether the last Request or StartStream wrote (part of) its request: false when it failed
  // while connecting, so the server certainly never saw it.
  bool last_request_sent() const;
  // Bounds connecting (TCP and TLS handshake) below the request's timeout; 0: no extra bound.
  void set_connect_timeout(std::chrono::milliseconds timeout);
  // From any thread: ends a blocking call in progress (and every later one) with Unavailable
  // "interrupted". Used to stop a watch that is waiting for the next event.
  void Interrupt();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tenure::client
