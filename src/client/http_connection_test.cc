// Tests of HttpConnection: one deadline for a whole request whatever steps it takes, replies framed
// every way HTTP/1.1 allows, streams read line by line, Interrupt, and requests that cannot be
// sent.
#include "client/http_connection.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
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

// A stand-in that accepts one connection and runs `script` on it (on a thread of its own).
class OneConnectionServer {
 public:
  explicit OneConnectionServer(std::function<void(int)> script) {
    EXPECT_TRUE(listener_.ok());
    thread_ = std::jthread([this, script = std::move(script)] {
      int c = accept(listener_.fd(), nullptr, nullptr);
      if (c < 0) return;
      connection_ = c;
      script(c);
    });
  }
  ~OneConnectionServer() { Finish(); }
  // Stops accepting and waits for the script to end; then accepted() is final.
  void Finish() {
    if (!thread_.joinable()) return;
    listener_.Shutdown();
    if (connection_ >= 0) shutdown(connection_, SHUT_RDWR);
    thread_.join();
    if (connection_ >= 0) close(connection_);
  }
  bool accepted() const { return connection_ >= 0; }
  Endpoint endpoint() const {
    Endpoint e;
    e.port = listener_.port();
    return e;
  }

 private:
  LoopbackListener listener_;
  std::atomic<int> connection_{-1};
  std::jthread thread_;
};

bool WriteText(int fd, const std::string& text) {
  return write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// A one-shot signal between the test and its stand-in server.
class Signal {
 public:
  void Raise() {
    std::lock_guard lock(mutex_);
    raised_ = true;
    changed_.notify_all();
  }
  bool Wait(std::chrono::milliseconds limit = 30s) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return raised_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool raised_ = false;
};

TEST(HttpConnectionTest, AReplyWithoutALengthEndsWhenTheServerCloses) {
  OneConnectionServer server([](int c) {
    std::string in;
    if (!ReadRequest(c, in)) return;
    WriteText(c, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe whole body");
    shutdown(c, SHUT_WR);
  });
  HttpConnection connection(server.endpoint());
  auto reply = connection.Request("GET", "/", {}, "", 10s);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, "the whole body");
}

TEST(HttpConnectionTest, AReplyWrittenByteByByteIsReadWhole) {
  OneConnectionServer server([](int c) {
    std::string in;
    if (!ReadRequest(c, in)) return;
    std::string reply =
        "HTTP/1.1 201 Created\r\nX-Name: Value\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
    for (char ch : reply) {
      if (!WriteText(c, std::string(1, ch))) return;
    }
  });
  HttpConnection connection(server.endpoint());
  auto reply = connection.Request("POST", "/things", {}, "{}", 10s);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->status, 201);
  EXPECT_EQ(reply->headers["x-name"], "Value");
  EXPECT_EQ(reply->body, "hello world");
}

TEST(HttpConnectionTest, AHeaderThatWouldEndItsLineIsRefusedAndNothingIsSent) {
  OneConnectionServer server([](int) {});
  HttpConnection connection(server.endpoint());
  auto reply =
      connection.Request("GET", "/", {{"Authorization", "Bearer t\r\nX-Injected: 1"}}, "", 10s);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().reason(), Reason::kBadRequest) << reply.status().ToString();
  EXPECT_NE(reply.status().message().find("Authorization"), std::string::npos);
  EXPECT_FALSE(connection.last_request_sent());
  EXPECT_FALSE(connection.Request("GET", "/a b", {}, "", 10s).ok());
  EXPECT_FALSE(connection.Request("GE T", "/", {}, "", 10s).ok());
  EXPECT_FALSE(connection.Request("GET", "/", {{"Bad Name", "v"}}, "", 10s).ok());
  server.Finish();
  EXPECT_FALSE(server.accepted());  // not even a connection was opened
}

TEST(HttpConnectionTest, InterruptEndsARequestWaitingForItsReply) {
  Signal received;
  OneConnectionServer server([&](int c) {
    std::string in;
    if (ReadRequest(c, in)) received.Raise();
    char byte;
    while (read(c, &byte, 1) > 0) {
    }  // never answers; ends when the test hangs up
  });
  HttpConnection connection(server.endpoint());
  std::jthread interrupter([&] {
    if (received.Wait()) connection.Interrupt();
  });
  auto reply = connection.Request("GET", "/", {}, "", 120s);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().message(), "interrupted");
  // And every later call.
  EXPECT_EQ(connection.Request("GET", "/", {}, "", 1s).status().message(), "interrupted");
}

TEST(HttpConnectionTest, AStreamGivesLinesAcrossChunksAndAWaitThatRunsOutLeavesItReadable) {
  Signal second_chunk, interrupted_wait;
  OneConnectionServer server([&](int c) {
    std::string in;
    if (!ReadRequest(c, in)) return;
    WriteText(c,
              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
              "a\r\n{\"n\":1}\n{\"\r\n");
    if (!second_chunk.Wait()) return;
    WriteText(c, "5\r\nn\":2}\r\n1\r\n\n\r\n");
    interrupted_wait.Wait();
  });
  HttpConnection connection(server.endpoint());
  auto head = connection.StartStream("/watch", {}, 10s);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->status, 200);
  auto first = connection.ReadLine(10s);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, R"({"n":1})");
  // Half of the next line is here; the rest comes only after this wait ran out.
  auto none = connection.ReadLine(20ms);
  EXPECT_EQ(none.status().reason(), Reason::kTimeout) << none.status().ToString();
  second_chunk.Raise();
  auto second = connection.ReadLine(10s);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, R"({"n":2})");
  // A reader waiting for a line that never comes is ended by Interrupt.
  std::jthread interrupter([&] {
    // Interrupt may come before or during the read: either way the read ends.
    connection.Interrupt();
  });
  auto third = connection.ReadLine(120s);
  EXPECT_EQ(third.status().message(), "interrupted");
  interrupted_wait.Raise();
}

// A watch's start answered with an error instead of a stream: the whole answer is the reply.
TEST(HttpConnectionTest, AStreamAnsweredWithoutAStreamGivesTheWholeAnswer) {
  OneConnectionServer server([](int c) {
    std::string in;
    if (!ReadRequest(c, in)) return;
    WriteText(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 11\r\n\r\nunavailable");
    ReadRequest(c, in);  // keeps the connection open, as a server would
  });
  HttpConnection connection(server.endpoint());
  auto head = connection.StartStream("/watch", {}, 10s);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->status, 503);
  EXPECT_EQ(head->body, "unavailable");
}

TEST(HttpConnectionTest, AServerThatHangsUpMidReplyIsAnError) {
  OneConnectionServer server([](int c) {
    std::string in;
    if (!ReadRequest(c, in)) return;
    WriteText(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part");
    shutdown(c, SHUT_WR);
  });
  HttpConnection connection(server.endpoint());
  auto reply = connection.Request("GET", "/", {}, "", 10s);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().reason(), Reason::kServiceUnavailable) << reply.status().ToString();
  EXPECT_NE(reply.status().message().find("request to 127.0.0.1:"), std::string::npos)
      << reply.status().ToString();
}

TEST(HttpConnectionTest, ARefusedConnectionNamesTheEndpoint) {
  RefusingPort refusing;
  const uint16_t port = refusing.port();
  Endpoint endpoint;
  endpoint.port = port;
  HttpConnection connection(endpoint);
  auto reply = connection.Request("GET", "/", {}, "", 10s);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().ToString(),
            Status::Unavailable("connecting to 127.0.0.1:" + std::to_string(port) +
                                ": Connection refused")
                .ToString());
  EXPECT_FALSE(connection.last_request_sent());
}

}  // namespace
}  // namespace tenure::client
