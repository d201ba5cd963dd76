// Transport: the byte stream under one HttpConnection. A TCP connection to the endpoint (through
// an HTTP proxy's CONNECT tunnel when it names one), with TLS on top when it asks for it.
//
// Every call blocks the caller's thread until its deadline at most: a non-blocking socket waited
// on with poll(), OpenSSL driven directly, no event loop and no timers, so a request costs the
// system calls it needs and no more. Not thread-safe, except Interrupt(), which any thread may
// call to end the wait in progress and every later call.
//
// Errors carry only what went wrong ("timed out", "Connection refused", an OpenSSL reason); the
// caller says where. Reasons: Timeout at the deadline, Unavailable for a failure or after
// Interrupt(), BadRequest for TLS settings that cannot be loaded, NotFound "end of stream" when
// the peer closed its side.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "client/http_connection.h"
#include "tenure/status.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace tenure::client {

class Transport {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  explicit Transport(Endpoint endpoint);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  const Endpoint& endpoint() const { return endpoint_; }
  // Connects, tunnels and handshakes by `deadline`; closes any connection before.
  Status Connect(Deadline deadline);
  bool connected() const { return fd_ >= 0; }
  // Sends all of `data`.
  Status Write(std::string_view data, Deadline deadline);
  // Appends what arrives to `into`, waiting until something does.
  Status ReadSome(std::string& into, Deadline deadline);
  void Close();
  void Interrupt();
  bool interrupted() const { return interrupted_; }

  // What the BIO under a TLS session works on: the socket, and whether a read met its end.
  struct BioSocket {
    int fd = -1;
    bool at_end = false;
  };

 private:
  Status ConnectTcp(Deadline deadline);
  Status Tunnel(Deadline deadline);
  Status Handshake(Deadline deadline);
  // Waits until the socket is ready for `events` (POLLIN / POLLOUT).
  Status Await(short events, Deadline deadline);
  // The outcome of an OpenSSL call that returned `result`: Ok to call it again once the socket is
  // ready for `*events`, or the error.
  Status TlsOutcome(int result, short* events);
  Status PlainWrite(std::string_view data, Deadline deadline);
  Status PlainRead(std::string& into, Deadline deadline);

  Endpoint endpoint_;
  std::shared_ptr<SSL_CTX> context_;  // shared by the connections with the same TLS options
  SSL* ssl_ = nullptr;
  BioSocket bio_socket_;  // the data of ssl_'s BIO
  int fd_ = -1;  // written by the owning thread under mutex_; Interrupt reads it under mutex_
  mutable std::mutex mutex_;
  std::atomic<bool> interrupted_{false};
};

}  // namespace tenure::client
