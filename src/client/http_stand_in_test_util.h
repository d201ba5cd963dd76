// HttpStandIn, for tests of the client and election layers: a plain-HTTP server on 127.0.0.1
// that answers every request with one canned reply (status and JSON body, replaceable at any
// time) and records each request's line ("GET /path?query HTTP/1.1") and body as they arrived,
// so a test can check exactly what the library sent and feed it replies no real server sends.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/test_loopback_listener.h"
#include "client/test_request_framer.h"

namespace tenure::client {

class HttpStandIn {
 public:
  HttpStandIn() {
    if (listener_.ok()) thread_ = std::thread([this] { Serve(); });
  }
  ~HttpStandIn() {
    listener_.Shutdown();
    if (thread_.joinable()) thread_.join();
    {
      std::lock_guard lock(mu_);
      for (int c : open_) shutdown(c, SHUT_RDWR);
    }
    for (auto& t : handlers_) t.join();
  }
  HttpStandIn(const HttpStandIn&) = delete;
  HttpStandIn& operator=(const HttpStandIn&) = delete;

  bool ok() const { return listener_.ok(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(listener_.port()); }

  // What every later request gets; `chunked`: the body as one chunk of a chunked reply, which
  // the connection then ends, instead of a Content-Length reply.
  void Reply(int status, std::string body, bool chunked = false) {
    std::lock_guard lock(mu_);
    status_ = status;
    body_ = std::move(body);
    chunked_ = chunked;
  }

  std::vector<std::string> request_lines() const {
    std::lock_guard lock(mu_);
    return lines_;
  }
  std::vector<std::string> request_bodies() const {
    std::lock_guard lock(mu_);
    return bodies_;
  }

  // Waits (real time, at most `limit`) until `count` requests arrived; their lines.
  std::vector<std::string> WaitForRequests(
      size_t count, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (request_lines().size() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return request_lines();
  }

 private:
  void Serve() {
    for (;;) {
      int c = accept(listener_.fd(), nullptr, nullptr);
      if (c < 0) return;
      std::lock_guard lock(mu_);
      open_.push_back(c);
      handlers_.emplace_back([this, c] { Handle(c); });
    }
  }

  // One keep-alive connection: requests (with a Content-Length body) until the client hangs up.
  void Handle(int c) {
    std::string in;
    while (std::optional<FramedRequest> request = ReadRequest(c, in)) {
      std::string reply;
      {
        std::lock_guard lock(mu_);
        lines_.push_back(std::move(request->line));
        bodies_.push_back(std::move(request->body));
        reply =
            "HTTP/1.1 " + std::to_string(status_) + " Canned\r\nContent-Type: application/json\r\n";
        if (chunked_) {
          char size[32];
          std::snprintf(size, sizeof(size), "%zx", body_.size());
          reply += "Transfer-Encoding: chunked\r\n\r\n" + std::string(size) + "\r\n" + body_ +
                   "\r\n0\r\n\r\n";
        } else {
          reply += "Content-Length: " + std::to_string(body_.size()) + "\r\n\r\n" + body_;
        }
      }
      if (write(c, reply.data(), reply.size()) < 0) break;
    }
    std::lock_guard lock(mu_);
    std::erase(open_, c);
    close(c);
  }

  LoopbackListener listener_;
  mutable std::mutex mu_;
  int status_ = 200;
  std::string body_ = "{}";
  bool chunked_ = false;
  std::vector<std::string> lines_;
  std::vector<std::string> bodies_;
  std::vector<int> open_;
  std::vector<std::thread> handlers_;
  std::thread thread_;
};

}  // namespace tenure::client
