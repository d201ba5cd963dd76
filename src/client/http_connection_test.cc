// Tests of HttpConnection's timeout: one deadline for a whole request, whatever steps it takes.
#include "client/http_connection.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "client/test_loopback_listener.h"
#include "client/test_request_framer.h"

namespace tenure::client {
namespace {

using namespace std::chrono_literals;

// A plain-HTTP stand-in on 127.0.0.1. Its first connection answers the first request (keep-
// alive), then reads the second one and hangs up `hang_up_after` later without answering; every
// later connection reads its request and never answers.
class SlowServer {
 public:
  explicit SlowServer(std::chrono::milliseconds hang_up_after) : hang_up_after_(hang_up_after) {
    EXPECT_TRUE(listener_.ok());
    accepter_ = std::jthread([this] {
      for (int index = 0;; ++index) {
        int c = accept(listener_.fd(), nullptr, nullptr);
        if (c < 0) return;
        connections_.push_back(c);
        handlers_.emplace_back([this, c, index] { Handle(c, index); });
      }
    });
  }
  ~SlowServer() {
    listener_.Shutdown();
    accepter_.join();
    for (int c : connections_) shutdown(c, SHUT_RDWR);
    handlers_.clear();
    for (int c : connections_) close(c);
  }
  uint16_t port() const { return listener_.port(); }

 private:
  void Handle(int c, int index) {
    std::string in;
    if (!ReadRequest(c, in)) return;
    if (index > 0) return;  // never answers (the connection stays open until the end)
    std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    if (write(c, ok.data(), ok.size()) != static_cast<ssize_t>(ok.size())) return;
    if (!ReadRequest(c, in)) return;
    // The server's own slowness, not a wait of the test: it hangs up late.
    std::this_thread::sleep_for(hang_up_after_);
    shutdown(c, SHUT_RDWR);
  }

  std::chrono::milliseconds hang_up_after_;
  LoopbackListener listener_;
  std::vector<int> connections_;
  std::vector<std::jthread> handlers_;
  std::jthread accepter_;
};

TEST(HttpConnectionTest, TheRetryOnAFreshConnectionGetsOnlyWhatIsLeftOfTheTimeout) {
  SlowServer server(1000ms);
  Endpoint endpoint;
  endpoint.port = server.port();
  HttpConnection connection(endpoint);
  auto first = connection.Request("GET", "/first", {}, "", 2s);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->status, 200);
  // The kept-alive connection is hung up on after 1 s; the retry on a new connection hears
  // nothing. The call must end at its 1.2 s timeout, not 1 s + another 1.2 s.
  auto start = std::chrono::steady_clock::now();
  auto second = connection.Request("GET", "/second", {}, "", 1200ms);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().reason(), Reason::kTimeout) << second.status().ToString();
  EXPECT_LT(took, 1900ms) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                          << " ms";
}

}  // namespace
}  // namespace tenure::client
