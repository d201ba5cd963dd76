// LoopbackListener: a listening TCP socket on 127.0.0.1 with a port the kernel chose, for tests
// that stand in for a server (one that answers by hand, hangs up, or never answers), and a port
// that refuses connections. Header-only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace tenure::client {

// A socket bound to 127.0.0.1 on a port the kernel chose (written to `port`), listening or not;
// -1 when that fails.
inline int BoundLoopbackSocket(bool listening, uint16_t* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      (listening && listen(fd, 64) != 0) ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

class LoopbackListener {
 public:
  LoopbackListener() : fd_(BoundLoopbackSocket(/*listening=*/true, &port_)) {}
  ~LoopbackListener() { Close(); }
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  uint16_t port() const { return port_; }
  // Ends a blocked accept() (it then fails) without closing the descriptor yet.
  void Shutdown() const {
    if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  uint16_t port_ = 0;  // before fd_: fd_'s initializer writes it
  int fd_ = -1;
};

// A port on 127.0.0.1 that refuses connections for as long as this lives: a socket bound to it
// that does not listen (a port merely closed again could be taken by a test running beside).
class RefusingPort {
 public:
  RefusingPort() : fd_(BoundLoopbackSocket(/*listening=*/false, &port_)) {}
  ~RefusingPort() {
    if (fd_ >= 0) close(fd_);
  }
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  uint16_t port() const { return port_; }

 private:
  uint16_t port_ = 0;  // before fd_: fd_'s initializer writes it
  int fd_ = -1;
};

}  // namespace tenure::client
