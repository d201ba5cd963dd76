// Transport: TCP (through a CONNECT tunnel when a proxy is named) and TLS on a non-blocking socket
// waited on with ppoll() on the caller's thread; OpenSSL through a BIO that never raises SIGPIPE.
#include "client/transport.h"

#include "client/tls_client_context.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace tenure::client {

namespace {

constexpr size_t kReadChunk = 16 * 1024;
constexpr size_t kMaxProxyReplyHead = 16 * 1024;

std::string Where(const std::string& host, uint16_t port) {
  return host + ":" + std::to_string(port);
}

std::string SystemError(int error) { return std::strerror(error); }

// Names a failure of a connecting step: "connecting to h:p: Connection refused".
Status StepFailed(const std::string& what, const Status& detail) {
  if (detail.reason() == Reason::kTimeout) return Status::Timeout(what + ": timed out");
  return Status::Unavailable(what + ": " + detail.message());
}

// A BIO over the socket that sends with MSG_NOSIGNAL: OpenSSL's own socket BIO write()s, which
// raises SIGPIPE in the whole process when the server has gone, and a library must not. Its data
// is the Transport's BioSocket: the descriptor, and whether a read met the stream's end, which
// BIO_CTRL_EOF reports (OpenSSL then takes a close without close_notify for the end of the
// stream, as SSL_OP_IGNORE_UNEXPECTED_EOF asks).
Transport::BioSocket& SocketOf(BIO* bio) {
  return *static_cast<Transport::BioSocket*>(BIO_get_data(bio));
}

int BioWrite(BIO* bio, const char* data, int size) {
  BIO_clear_retry_flags(bio);
  ssize_t n = ::send(SocketOf(bio).fd, data, static_cast<size_t>(size), MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_write(bio);
  }
  return static_cast<int>(n);
}

int BioRead(BIO* bio, char* out, int size) {
  BIO_clear_retry_flags(bio);
  Transport::BioSocket& socket = SocketOf(bio);
  ssize_t n = ::recv(socket.fd, out, static_cast<size_t>(size), 0);
  if (n == 0) socket.at_end = true;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_read(bio);
  }
  return static_cast<int>(n);
}

long BioControl(BIO* bio, int command, long, void*) {
  if (command == BIO_CTRL_FLUSH) return 1;
  if (command == BIO_CTRL_EOF) return SocketOf(bio).at_end ? 1 : 0;
  return 0;
}

int BioCreate(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

BIO_METHOD* SocketBioMethod() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tenure socket");
    BIO_meth_set_write(m, BioWrite);
    BIO_meth_set_read(m, BioRead);
    BIO_meth_set_ctrl(m, BioControl);
    BIO_meth_set_create(m, BioCreate);
    return m;
  }();
  return method;
}

// Before each OpenSSL call whose outcome SSL_get_error reads: an error left queued on this
// thread by other code, or an errno of an earlier call, must not be taken for this call's.
void ClearErrors() {
  ERR_clear_error();
  errno = 0;
}

bool IsIpAddress(const std::string& name) {
  in6_addr address;
  return inet_pton(AF_INET, name.c_str(), &address) == 1 ||
         inet_pton(AF_INET6, name.c_str(), &address) == 1;
}

}  // namespace

Transport::Transport(Endpoint endpoint) : endpoint_(std::move(endpoint)) {}

Transport::~Transport() { Close(); }

void Transport::Close() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  ssl_ = nullptr;
  std::lock_guard lock(mutex_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Transport::Interrupt() {
  std::lock_guard lock(mutex_);
  interrupted_ = true;
  // Wakes a ppoll() on the socket in the owning thread; the descriptor stays open until Close.
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

Status Transport::Await(short events, Deadline deadline) {
  for (;;) {
    if (interrupted_) return Status::Unavailable("interrupted");
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return Status::Timeout("timed out");
    auto seconds = std::chrono::duration_cast<std::chrono::seconds>(left);
    timespec wait{static_cast<time_t>(seconds.count()),
                  static_cast<long>((left - seconds) / std::chrono::nanoseconds(1))};
    pollfd socket{fd_, events, 0};
    int ready = ::ppoll(&socket, 1, &wait, nullptr);
    if (ready < 0 && errno != EINTR) return Status::Unavailable(SystemError(errno));
    if (ready > 0) {
      if (interrupted_) return Status::Unavailable("interrupted");
      return Status::Ok();  // ready, or failed: the next call on the socket says which
    }
  }
}

Status Transport::Connect(Deadline deadline) {
  Close();
  if (interrupted_) return Status::Unavailable("interrupted");
  if (endpoint_.tls.enabled) {
    auto context = SharedTlsClientContext(endpoint_.tls);
    if (!context.ok()) return context.status();
    context_ = std::move(*context);
  }
  if (Status s = ConnectTcp(deadline); !s.ok()) return s;
  if (endpoint_.proxy) {
    if (Status s = Tunnel(deadline); !s.ok()) {
      Close();
      return s;
    }
  }
  if (endpoint_.tls.enabled) {
    if (Status s = Handshake(deadline); !s.ok()) {
      Close();
      return s;
    }
  }
  return Status::Ok();
}

Status Transport::ConnectTcp(Deadline deadline) {
  const std::string where = Where(endpoint_.host, endpoint_.port);
  // Through a proxy the client connects to the proxy and never resolves the server's name.
  const std::string& host = endpoint_.proxy ? endpoint_.proxy->host : endpoint_.host;
  const uint16_t port = endpoint_.proxy ? endpoint_.proxy->port : endpoint_.port;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  int resolved = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (resolved != 0) {
    std::string why = resolved == EAI_SYSTEM ? SystemError(errno) : ::gai_strerror(resolved);
    return Status::Unavailable(
        (endpoint_.proxy ? "resolving the proxy " + host + " for " : std::string("resolving ")) +
        where + ": " + why);
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
  const std::string what = endpoint_.proxy
                               ? "connecting to the proxy " + Where(host, port) + " for " + where
                               : "connecting to " + where;
  // Each address in turn, as a resolver's list is meant to be tried; the last failure is told.
  Status failed = Status::Unavailable("no address");
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      failed = Status::Unavailable(SystemError(errno));
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      fd_ = fd;
    }
    Status connected = Status::Ok();
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        connected = Status::Unavailable(SystemError(errno));
      } else if (connected = Await(POLLOUT, deadline); connected.ok()) {
        int error = 0;
        socklen_t size = sizeof error;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
        if (error != 0) connected = Status::Unavailable(SystemError(error));
      }
    }
    if (connected.ok()) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return Status::Ok();
    }
    Close();
    if (interrupted_) return Status::Unavailable("interrupted");
    if (connected.reason() == Reason::kTimeout) return StepFailed(what, connected);
    failed = connected;
  }
  return StepFailed(what, failed);
}

// HTTP CONNECT through the proxy: afterwards the socket carries the endpoint's own bytes (its
// TLS handshake first). Any answer but 2xx is the proxy's refusal, named with its status line.
Status Transport::Tunnel(Deadline deadline) {
  std::string target = endpoint_.host.find(':') != std::string::npos
                           ? "[" + endpoint_.host + "]:" + std::to_string(endpoint_.port)
                           : Where(endpoint_.host, endpoint_.port);
  std::string request = "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n";
  if (!endpoint_.proxy->authorization.empty()) {
    request += "Proxy-Authorization: " + endpoint_.proxy->authorization + "\r\n";
  }
  request += "\r\n";
  const std::string proxy = Where(endpoint_.proxy->host, endpoint_.proxy->port);
  const std::string what =
      "tunnelling through the proxy " + proxy + " to " + Where(endpoint_.host, endpoint_.port);
  if (Status s = PlainWrite(request, deadline); !s.ok()) return StepFailed(what, s);
  std::string reply;
  size_t end;
  while ((end = reply.find("\r\n\r\n")) == std::string::npos) {
    if (reply.size() > kMaxProxyReplyHead) {
      return Status::Unavailable(what + ": the proxy's answer is longer than 16 KiB");
    }
    if (Status s = PlainRead(reply, deadline); !s.ok()) return StepFailed(what, s);
  }
  std::string status_line = reply.substr(0, reply.find("\r\n"));
  // "HTTP/1.1 200 Connection established"
  size_t space = status_line.find(' ');
  int code = space == std::string::npos ? 0 : std::atoi(status_line.c_str() + space + 1);
  if (code < 200 || code > 299) {
    return Status::Unavailable("the proxy " + proxy + " refused to connect to " + target + ": " +
                               status_line);
  }
  if (reply.size() > end + 4) {
    return Status::Unavailable("the proxy " + proxy + " sent data before the tunnel to " + target +
                               " was used");
  }
  return Status::Ok();
}

Status Transport::Handshake(Deadline deadline) {
  const std::string what = "TLS handshake with " + Where(endpoint_.host, endpoint_.port);
  ssl_ = SSL_new(context_.get());
  BIO* bio = ssl_ != nullptr ? BIO_new(SocketBioMethod()) : nullptr;
  if (bio == nullptr) return Status::Unavailable(what + ": " + OpenSslError());
  bio_socket_ = BioSocket{fd_, false};
  BIO_set_data(bio, &bio_socket_);
  SSL_set_bio(ssl_, bio, bio);
  const std::string& name =
      endpoint_.tls.server_name.empty() ? endpoint_.host : endpoint_.tls.server_name;
  const bool address = IsIpAddress(name);
  if (!address) SSL_set_tlsext_host_name(ssl_, name.c_str());
  if (!endpoint_.tls.insecure_skip_verify) {
    // The certificate must name the server: its IP address, or its DNS name (wildcards as
    // RFC 6125 allows).
    int set = address ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), name.c_str())
                      : SSL_set1_host(ssl_, name.c_str());
    if (set != 1) {
      return Status::Unavailable(what + ": cannot check the name " + name + ": " + OpenSslError());
    }
  }
  for (;;) {
    ClearErrors();
    int result = SSL_connect(ssl_);
    if (result == 1) return Status::Ok();
    short events = 0;
    Status s = TlsOutcome(result, &events);
    if (s.ok()) s = Await(events, deadline);
    if (!s.ok()) {
      if (s.message() == "interrupted") return s;
      long verified = SSL_get_verify_result(ssl_);
      if (verified != X509_V_OK && s.reason() != Reason::kTimeout) {
        return Status::Unavailable(what + ": " + s.message() + " (" +
                                   X509_verify_cert_error_string(verified) + ")");
      }
      return StepFailed(what, s);
    }
  }
}

Status Transport::TlsOutcome(int result, short* events) {
  int saved_errno = errno;
  int error = SSL_get_error(ssl_, result);
  switch (error) {
    case SSL_ERROR_WANT_READ:
      *events = POLLIN;
      return Status::Ok();
    case SSL_ERROR_WANT_WRITE:
      *events = POLLOUT;
      return Status::Ok();
    case SSL_ERROR_ZERO_RETURN:
      return Status::NotFound("end of stream");
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      if (interrupted_) return Status::Unavailable("interrupted");
      if (saved_errno == 0) return Status::NotFound("end of stream");
      return Status::Unavailable(SystemError(saved_errno));
    default:
      if (interrupted_) {
        ERR_clear_error();
        return Status::Unavailable("interrupted");
      }
      return Status::Unavailable(OpenSslError());
  }
}

Status Transport::PlainWrite(std::string_view data, Deadline deadline) {
  while (!data.empty()) {
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n >= 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    if (interrupted_) return Status::Unavailable("interrupted");
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Status::Unavailable(SystemError(errno));
    if (Status s = Await(POLLOUT, deadline); !s.ok()) return s;
  }
  return Status::Ok();
}

Status Transport::PlainRead(std::string& into, Deadline deadline) {
  char chunk[kReadChunk];
  for (;;) {
    // Wait first: the caller reads when it expects bytes that have most often not come yet, and
    // ppoll() then recv() is one system call fewer than recv(), ppoll(), recv().
    if (Status s = Await(POLLIN, deadline); !s.ok()) return s;
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      into.append(chunk, static_cast<size_t>(n));
      return Status::Ok();
    }
    if (interrupted_) return Status::Unavailable("interrupted");
    if (n == 0) return Status::NotFound("end of stream");
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Status::Unavailable(SystemError(errno));
    }
  }
}

Status Transport::Write(std::string_view data, Deadline deadline) {
  if (fd_ < 0) return Status::Unavailable("not connected");
  if (ssl_ == nullptr) return PlainWrite(data, deadline);
  while (!data.empty()) {
    ClearErrors();
    int n = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1 << 30)));
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    short events = 0;
    Status s = TlsOutcome(n, &events);
    if (s.ok()) s = Await(events, deadline);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status Transport::ReadSome(std::string& into, Deadline deadline) {
  if (fd_ < 0) return Status::Unavailable("not connected");
  if (ssl_ == nullptr) return PlainRead(into, deadline);
  char chunk[kReadChunk];
  // Bytes OpenSSL holds already are read without waiting on the socket.
  short events = SSL_has_pending(ssl_) ? 0 : POLLIN;
  for (;;) {
    if (events != 0) {
      if (Status s = Await(events, deadline); !s.ok()) return s;
    }
    ClearErrors();
    int n = SSL_read(ssl_, chunk, sizeof chunk);
    if (n > 0) {
      into.append(chunk, static_cast<size_t>(n));
      return Status::Ok();
    }
    if (Status s = TlsOutcome(n, &events); !s.ok()) return s;
  }
}

}  // namespace tenure::client
