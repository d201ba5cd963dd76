// LeanClient: the benchmark's load generator connection. One blocking keep-alive HTTP/1.1
// connection (TLS through OpenSSL directly, or plain), no event loop, no timers, no per-request
// header maps: it shares the 2 cores with the server under test, so every microsecond it spends
// is taken from the server (etcd's published figures come from its own lean C++ client too).
// Replies must carry Content-Length or chunked framing. Not thread-safe: one per thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace bench {

struct LeanReply {
  int status = 0;  // 0: transport failure
  std::string body;
};

class LeanClient {
 public:
  // `ca_file` empty: plain HTTP. The server certificate is verified against `ca_file`.
  LeanClient(uint16_t port, std::string ca_file);
  ~LeanClient();
  LeanClient(const LeanClient&) = delete;
  LeanClient& operator=(const LeanClient&) = delete;

  // `headers`: complete "Name: value\r\n" lines (without Content-Length). Reconnects once when a
  // kept-alive connection turns out closed.
  LeanReply Request(std::string_view method, std::string_view target, std::string_view headers,
                    std::string_view body);

 private:
  bool Connect();
  void Close();
  bool WriteAll(const std::string& data);
  // Reads at least one more byte into in_; false on EOF or error.
  bool ReadMore();
  bool ReadReply(LeanReply& reply);

  uint16_t port_;
  std::string ca_file_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  std::string out_;
  std::string in_;
};

// The value of the first "<field>":"<value>" in `json` (no escapes in value), or "".
std::string_view JsonStringField(std::string_view json, std::string_view field);

}  // namespace bench
