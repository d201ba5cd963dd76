// HttpServer behaviour that the REST tests do not reach: idle keep-alive connections end.
#include "server/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace tenure::server {
namespace {

class OkHandler : public HttpHandler {
 public:
  void Handle(HttpRequest, std::shared_ptr<Responder> responder) override {
    HttpResponse r;
    r.body = "{}";
    responder->Reply(std::move(r));
  }
  HttpResponse Reject(const Status&) override { return HttpResponse{.status = 400}; }
};

int ConnectTo(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  timeval wait{.tv_sec = 20, .tv_usec = 0};  // only bounds a broken server
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  return fd;
}

TEST(HttpServerTest, IdleKeepAliveConnectionIsClosed) {
  HttpServerOptions options;
  options.tls = false;
  options.idle_timeout = std::chrono::seconds(1);
  auto server = HttpServer::Start(options, std::make_shared<OkHandler>());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  int fd = ConnectTo((*server)->port());
  ASSERT_GE(fd, 0);
  std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  char buf[4096];
  ssize_t n = recv(fd, buf, sizeof buf, 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, 12), "HTTP/1.1 200");
  // Nothing more is sent: the server ends the connection after its idle timeout.
  EXPECT_EQ(recv(fd, buf, sizeof buf, 0), 0);
  close(fd);
  (*server)->Stop();
}

}  // namespace
}  // namespace tenure::server
