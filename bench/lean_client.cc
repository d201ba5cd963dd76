// LeanClient: the benchmark's blocking keep-alive HTTP/1.1 client (TLS via OpenSSL, or plain).
#include "lean_client.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace bench {

LeanClient::LeanClient(uint16_t port, std::string ca_file)
    : port_(port), ca_file_(std::move(ca_file)) {
  if (!ca_file_.empty()) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    SSL_CTX_load_verify_locations(ctx_, ca_file_.c_str(), nullptr);
    // One read() per TLS record instead of two (header, then body).
    SSL_CTX_set_read_ahead(ctx_, 1);
  }
}

LeanClient::~LeanClient() {
  Close();
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

void LeanClient::Close() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  ssl_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  in_.clear();
}

bool LeanClient::Connect() {
  Close();
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    Close();
    return false;
  }
  if (ctx_ == nullptr) return true;
  ssl_ = SSL_new(ctx_);
  SSL_set_fd(ssl_, fd_);
  // The server certificate is issued for 127.0.0.1 (an IP SAN).
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), "127.0.0.1");
  if (SSL_connect(ssl_) != 1) {
    ERR_clear_error();
    Close();
    return false;
  }
  return true;
}

bool LeanClient::WriteAll(const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    int n =
        ssl_ != nullptr
            ? SSL_write(ssl_, data.data() + done, static_cast<int>(data.size() - done))
            : static_cast<int>(::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL));
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool LeanClient::ReadMore() {
  char buf[16384];
  int n = ssl_ != nullptr ? SSL_read(ssl_, buf, sizeof buf)
                          : static_cast<int>(::recv(fd_, buf, sizeof buf, 0));
  if (n <= 0) return false;
  in_.append(buf, static_cast<size_t>(n));
  return true;
}

bool LeanClient::ReadReply(LeanReply& reply) {
  size_t head_end;
  while ((head_end = in_.find("\r\n\r\n")) == std::string::npos) {
    if (!ReadMore()) return false;
  }
  std::string_view head(in_.data(), head_end);
  if (head.size() < 12 || head.substr(0, 5) != "HTTP/") return false;
  reply.status = std::atoi(head.data() + 9);
  long length = -1;
  bool chunked = false;
  for (size_t at = head.find("\r\n"); at != std::string_view::npos;) {
    size_t next = head.find("\r\n", at + 2);
    std::string_view line =
        head.substr(at + 2, next == std::string_view::npos ? head.npos : next - at - 2);
    if (line.size() > 15 && strncasecmp(line.data(), "content-length:", 15) == 0) {
      length = std::atol(line.data() + 15);
    } else if (line.size() > 18 && strncasecmp(line.data(), "transfer-encoding:", 18) == 0) {
      chunked = line.find("chunked") != std::string_view::npos;
    }
    at = next;
  }
  size_t pos = head_end + 4;
  reply.body.clear();
  if (!chunked) {
    if (length < 0) return false;
    while (in_.size() < pos + static_cast<size_t>(length)) {
      if (!ReadMore()) return false;
    }
    reply.body.assign(in_, pos, static_cast<size_t>(length));
    in_.erase(0, pos + static_cast<size_t>(length));
    return true;
  }
  for (;;) {
    size_t eol;
    while ((eol = in_.find("\r\n", pos)) == std::string::npos) {
      if (!ReadMore()) return false;
    }
    size_t size = std::strtoul(in_.c_str() + pos, nullptr, 16);
    pos = eol + 2;
    while (in_.size() < pos + size + 2) {
      if (!ReadMore()) return false;
    }
    reply.body.append(in_, pos, size);
    pos += size + 2;
    if (size == 0) break;  // no trailers expected
  }
  in_.erase(0, pos);
  return true;
}

LeanReply LeanClient::Request(std::string_view method, std::string_view target,
                              std::string_view headers, std::string_view body) {
  out_.clear();
  out_.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  out_.append(headers);
  out_.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n\r\n");
  out_.append(body);
  LeanReply reply;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = fd_ >= 0;
    if (!reused && !Connect()) return reply;
    if (WriteAll(out_) && ReadReply(reply)) return reply;
    reply.status = 0;
    Close();
    if (!reused) break;
  }
  return reply;
}

std::string_view JsonStringField(std::string_view json, std::string_view field) {
  std::string key = "\"" + std::string(field) + "\":\"";
  size_t at = json.find(key);
  if (at == std::string_view::npos) return {};
  at += key.size();
  size_t end = json.find('"', at);
  if (end == std::string_view::npos) return {};
  return json.substr(at, end - at);
}

}  // namespace bench
