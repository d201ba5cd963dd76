// FloorServer: the cheapest TLS keep-alive HTTP/1.1 server the benchmark can put on this
// machine, to measure what any request over TLS on loopback costs before a server does anything
// with it. A blocking thread per connection (no event loop, no strand hand-offs), OpenSSL
// directly; every request, whatever its method and target, is answered 200 with the same
// `reply` body. The rate LeanClient reaches against it is the floor under every figure of
// server_bench: tenure's HTTP stack and work sit on top of these bytes and syscalls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace bench {

class FloorServer {
 public:
  // Listens on 127.0.0.1 (a free port) with the certificate chain and key of those files.
  // Aborts when they cannot be loaded: a benchmark setup error.
  FloorServer(const std::string& cert_file, const std::string& key_file, std::string reply);
  ~FloorServer();  // closes every connection and joins their threads
  FloorServer(const FloorServer&) = delete;
  FloorServer& operator=(const FloorServer&) = delete;

  uint16_t port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bench
