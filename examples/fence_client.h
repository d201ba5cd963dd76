// FenceClient: the example's downstream system, reached with plain HTTP/1.1 over a keep-alive
// loopback socket: POST a JSON body, get the status code (0 when the exchange failed). What an
// application's own storage client would be; the fencing token travels in the body.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

class FenceClient {
 public:
  explicit FenceClient(uint16_t port) : port_(port) {}
  ~FenceClient() { Close(); }
  FenceClient(const FenceClient&) = delete;
  FenceClient& operator=(const FenceClient&) = delete;

  // One request; each socket call waits at most `timeout`. A failed exchange closes the
  // connection, and the next call opens a new one.
  // A kept-alive connection the server closed meanwhile is replaced once by a new one.
  int Post(const std::string& path, const std::string& body, std::chrono::milliseconds timeout) {
    std::string request = "POST " + path +
                          " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                          "Content-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool reused = fd_ >= 0;
      if (!reused && !Open(timeout)) return 0;
      int status = SendAndRead(request);
      if (status != 0) return status;
      Close();
      if (!reused) return 0;
    }
    return 0;
  }

 private:
  bool Open(std::chrono::milliseconds timeout) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return false;
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      Close();
      return false;
    }
    return true;
  }

  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

  // Writes the request and reads one answer (head and Content-Length body); its status or 0.
  int SendAndRead(const std::string& request) {
    for (size_t sent = 0; sent < request.size();) {
      ssize_t n = send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return 0;
      sent += static_cast<size_t>(n);
    }
    std::string in;
    size_t head_end;
    while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
      if (!Receive(in)) return 0;
    }
    std::string head = in.substr(0, head_end);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t length_at = head.find("content-length:");
    size_t length =
        length_at < head_end ? std::strtoul(in.c_str() + length_at + 15, nullptr, 10) : 0;
    while (in.size() < head_end + 4 + length) {
      if (!Receive(in)) return 0;
    }
    // "HTTP/1.1 200 OK"
    return in.size() > 12 ? std::atoi(in.c_str() + 9) : 0;
  }

  bool Receive(std::string& in) {
    char buffer[4096];
    ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    in.append(buffer, static_cast<size_t>(n));
    return true;
  }

  uint16_t port_;
  int fd_ = -1;
};
