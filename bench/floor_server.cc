// FloorServer: a minimal blocking TLS keep-alive HTTP/1.1 server, the floor of a request.
#include "floor_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace bench {

struct FloorServer::Impl {
  SSL_CTX* ctx = nullptr;
  int listener = -1;
  uint16_t port = 0;
  std::string response;  // the whole reply, head and body
  std::mutex mu;
  std::vector<int> connections;  // shut down at the end so their threads return
  std::vector<std::thread> threads;
  std::thread acceptor;

  void Accept() {
    for (;;) {
      int fd = ::accept(listener, nullptr, nullptr);
      if (fd < 0 && (errno == EINVAL || errno == EBADF)) return;  // the listener was shut down
      if (fd < 0) continue;  // EINTR, a connection that went away, no descriptor left: go on
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard lock(mu);
      connections.push_back(fd);
      threads.emplace_back([this, fd] { Serve(fd); });
    }
  }

  // Reads requests (head, then a Content-Length body) and answers each with `response`.
  void Serve(int fd) {
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    std::string in;
    char buf[16384];
    if (SSL_accept(ssl) == 1) {
      for (;;) {
        size_t head_end;
        bool open = true;
        while (open && (head_end = in.find("\r\n\r\n")) == std::string::npos) {
          int n = SSL_read(ssl, buf, sizeof buf);
          if (n <= 0) open = false;
          if (open) in.append(buf, static_cast<size_t>(n));
        }
        if (!open) break;
        size_t length = 0;
        for (size_t at = in.find("\r\n"); at < head_end; at = in.find("\r\n", at + 2)) {
          if (strncasecmp(in.c_str() + at + 2, "content-length:", 15) == 0) {
            length = std::strtoul(in.c_str() + at + 17, nullptr, 10);
          }
        }
        while (open && in.size() < head_end + 4 + length) {
          int n = SSL_read(ssl, buf, sizeof buf);
          if (n <= 0) open = false;
          if (open) in.append(buf, static_cast<size_t>(n));
        }
        if (!open) break;
        in.erase(0, head_end + 4 + length);
        if (SSL_write(ssl, response.data(), static_cast<int>(response.size())) <= 0) break;
      }
    }
    ERR_clear_error();
    SSL_free(ssl);
  }
};

FloorServer::FloorServer(const std::string& cert_file, const std::string& key_file,
                         std::string reply)
    : impl_(std::make_unique<Impl>()) {
  impl_->ctx = SSL_CTX_new(TLS_server_method());
  if (SSL_CTX_use_certificate_chain_file(impl_->ctx, cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(impl_->ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    std::fprintf(stderr, "floor server: cannot load %s and %s\n", cert_file.c_str(),
                 key_file.c_str());
    std::abort();
  }
  SSL_CTX_set_read_ahead(impl_->ctx, 1);
  impl_->response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                    std::to_string(reply.size()) + "\r\n\r\n" + reply;
  impl_->listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  if (::bind(impl_->listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(impl_->listener, 1024) != 0 ||
      ::getsockname(impl_->listener, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
    std::perror("floor server: listen");
    std::abort();
  }
  impl_->port = ntohs(addr.sin_port);
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->Accept(); });
}

FloorServer::~FloorServer() {
  ::shutdown(impl_->listener, SHUT_RDWR);
  impl_->acceptor.join();
  ::close(impl_->listener);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(impl_->mu);
    for (int fd : impl_->connections) ::shutdown(fd, SHUT_RDWR);
    threads.swap(impl_->threads);
  }
  for (auto& t : threads) t.join();
  for (int fd : impl_->connections) ::close(fd);
  SSL_CTX_free(impl_->ctx);
}

uint16_t FloorServer::port() const { return impl_->port; }

}  // namespace bench
