// HttpConnection: one blocking keep-alive HTTP/1.1 connection (plain or TLS) on Boost.Beast.
#include <utility>  // before asio (Boost 1.74 with GCC 12)

#include "client/http_connection.h"

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <functional>
#include <optional>

namespace tenure::client {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

Status TransportError(const Endpoint& ep, const std::string& what, const beast::error_code& ec) {
  std::string where = ep.host + ":" + std::to_string(ep.port);
  if (ec == beast::error::timeout) return Status::Timeout(what + " " + where + ": timed out");
  return Status::Unavailable(what + " " + where + ": " + ec.message());
}

}  // namespace

struct HttpConnection::Impl {
  using Deadline = std::chrono::steady_clock::time_point;

  Endpoint endpoint;
  std::atomic<bool> interrupted{false};
  bool sent = false;  // the last request wrote (part of) itself
  std::chrono::milliseconds connect_timeout{0};
  net::io_context io;
  std::optional<net::ssl::context> ssl;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;
  // Streaming state.
  std::optional<http::response_parser<http::string_body>> stream_parser;
  std::string pending;
  // Beast keeps a reference to the chunk callback: it lives here, beside the parser.
  std::function<std::size_t(std::uint64_t, beast::string_view, beast::error_code&)> on_chunk =
      [this](std::uint64_t, beast::string_view data, beast::error_code&) -> std::size_t {
    pending.append(data.data(), data.size());
    return data.size();
  };

  beast::tcp_stream& lowest() { return secure ? beast::get_lowest_layer(*secure) : *plain; }
  bool connected() const { return plain.has_value() || secure.has_value(); }

  void Close() {
    beast::error_code ec;
    if (secure) beast::get_lowest_layer(*secure).socket().close(ec);
    if (plain) plain->socket().close(ec);
    secure.reset();
    plain.reset();
    stream_parser.reset();
    buffer.clear();
    pending.clear();
  }

  // Runs the queued async operations to completion (the stream's own timer bounds them).
  void Run() {
    io.restart();
    io.run();
  }

  Status ConfigureTls() {
    ssl.emplace(net::ssl::context::tls_client);
    const TlsOptions& t = endpoint.tls;
    beast::error_code ec;
    if (t.insecure_skip_verify) {
      ssl->set_verify_mode(net::ssl::verify_none);
    } else {
      ssl->set_verify_mode(net::ssl::verify_peer);
      if (!t.ca_data.empty()) {
        ssl->add_certificate_authority(net::buffer(t.ca_data), ec);
      } else if (!t.ca_file.empty()) {
        ssl->load_verify_file(t.ca_file, ec);
      } else {
        ssl->set_default_verify_paths(ec);
      }
      if (ec) return Status::BadRequest("cannot load the CA: " + ec.message());
    }
    if (!t.cert_data.empty()) ssl->use_certificate_chain(net::buffer(t.cert_data), ec);
    if (!ec && !t.cert_file.empty()) ssl->use_certificate_chain_file(t.cert_file, ec);
    if (!ec && !t.key_data.empty())
      ssl->use_private_key(net::buffer(t.key_data), net::ssl::context::pem, ec);
    if (!ec && !t.key_file.empty())
      ssl->use_private_key_file(t.key_file, net::ssl::context::pem, ec);
    if (ec) return Status::BadRequest("cannot load the client certificate: " + ec.message());
    return Status::Ok();
  }

  // Connects (and handshakes) by `deadline`, or sooner by connect_timeout when one is set.
  Status Connect(Deadline deadline) {
    Close();
    if (connect_timeout.count() > 0) {
      deadline = std::min(deadline, std::chrono::steady_clock::now() + connect_timeout);
    }
    beast::error_code ec;
    tcp::resolver resolver(io);
    // Through a proxy the client connects to the proxy and never resolves the server's name.
    const std::string& connect_host = endpoint.proxy ? endpoint.proxy->host : endpoint.host;
    uint16_t connect_port = endpoint.proxy ? endpoint.proxy->port : endpoint.port;
    auto results = resolver.resolve(connect_host, std::to_string(connect_port), ec);
    if (ec) {
      return endpoint.proxy
                 ? TransportError(endpoint, "resolving the proxy " + connect_host + " for", ec)
                 : TransportError(endpoint, "resolving", ec);
    }
    if (endpoint.tls.enabled) {
      if (!ssl) {
        if (Status s = ConfigureTls(); !s.ok()) return s;
      }
      secure.emplace(io, *ssl);
    } else {
      plain.emplace(io);
    }
    lowest().expires_at(deadline);
    lowest().async_connect(results, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
    Run();
    if (ec) {
      Close();
      return endpoint.proxy ? TransportError(endpoint,
                                             "connecting to the proxy " + connect_host + ":" +
                                                 std::to_string(connect_port) + " for",
                                             ec)
                            : TransportError(endpoint, "connecting to", ec);
    }
    lowest().socket().set_option(tcp::no_delay(true), ec);
    if (endpoint.proxy) {
      if (Status s = Tunnel(deadline); !s.ok()) {
        Close();
        return s;
      }
    }
    if (secure) {
      std::string name =
          endpoint.tls.server_name.empty() ? endpoint.host : endpoint.tls.server_name;
      beast::error_code parse_ec;
      net::ip::make_address(name, parse_ec);
      if (parse_ec) SSL_set_tlsext_host_name(secure->native_handle(), name.c_str());
      if (!endpoint.tls.insecure_skip_verify) {
        secure->set_verify_callback(net::ssl::host_name_verification(name));
      }
      lowest().expires_at(deadline);
      secure->async_handshake(net::ssl::stream_base::client, [&](beast::error_code e) { ec = e; });
      Run();
      if (ec) {
        Close();
        return TransportError(endpoint, "TLS handshake with", ec);
      }
    }
    return Status::Ok();
  }

  // HTTP CONNECT through the proxy: afterwards the socket carries the endpoint's own bytes (its
  // TLS handshake first). Any answer but 2xx is the proxy's refusal, named with its status line.
  Status Tunnel(Deadline deadline) {
    std::string target = endpoint.host + ":" + std::to_string(endpoint.port);
    if (endpoint.host.find(':') != std::string::npos) {
      target = "[" + endpoint.host + "]:" + std::to_string(endpoint.port);
    }
    std::string request = "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n";
    if (!endpoint.proxy->authorization.empty()) {
      request += "Proxy-Authorization: " + endpoint.proxy->authorization + "\r\n";
    }
    request += "\r\n";
    beast::error_code ec;
    lowest().expires_at(deadline);
    net::async_write(lowest(), net::buffer(request), [&](beast::error_code e, size_t) { ec = e; });
    Run();
    std::string reply;
    if (!ec) {
      lowest().expires_at(deadline);
      net::async_read_until(lowest(), net::dynamic_buffer(reply, 16 * 1024), "\r\n\r\n",
                            [&](beast::error_code e, size_t) { ec = e; });
      Run();
    }
    std::string proxy = endpoint.proxy->host + ":" + std::to_string(endpoint.proxy->port);
    if (ec) return TransportError(endpoint, "tunnelling through the proxy " + proxy + " to", ec);
    std::string status_line = reply.substr(0, reply.find("\r\n"));
    // "HTTP/1.1 200 Connection established"
    size_t space = status_line.find(' ');
    int code = space == std::string::npos ? 0 : std::atoi(status_line.c_str() + space + 1);
    if (code < 200 || code > 299) {
      return Status::Unavailable("the proxy " + proxy + " refused to connect to " + target + ": " +
                                 status_line);
    }
    if (reply.size() > reply.find("\r\n\r\n") + 4) {
      return Status::Unavailable("the proxy " + proxy + " sent data before the tunnel to " +
                                 target + " was used");
    }
    return Status::Ok();
  }

  template <typename Message>
  beast::error_code Write(Message& message, Deadline deadline) {
    beast::error_code ec;
    lowest().expires_at(deadline);
    if (secure) {
      http::async_write(*secure, message, [&](beast::error_code e, size_t) { ec = e; });
    } else {
      http::async_write(*plain, message, [&](beast::error_code e, size_t) { ec = e; });
    }
    Run();
    return ec;
  }

  template <typename Parser>
  beast::error_code Read(Parser& parser, Deadline deadline, bool header_only) {
    beast::error_code ec;
    lowest().expires_at(deadline);
    auto done = [&](beast::error_code e, size_t) { ec = e; };
    if (secure) {
      if (header_only)
        http::async_read_header(*secure, buffer, parser, done);
      else
        http::async_read(*secure, buffer, parser, done);
    } else {
      if (header_only)
        http::async_read_header(*plain, buffer, parser, done);
      else
        http::async_read(*plain, buffer, parser, done);
    }
    Run();
    return ec;
  }

  http::request<http::string_body> MakeRequest(
      const std::string& method, const std::string& target,
      const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body) {
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(target);
    req.version(11);
    req.set(http::field::host, endpoint.host + ":" + std::to_string(endpoint.port));
    req.set(http::field::user_agent, "tenure/0.1");
    for (const auto& [name, value] : headers) req.set(name, value);
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
      req.body() = body;
      req.prepare_payload();
    }
    req.keep_alive(true);
    return req;
  }

  static HttpReply ToReply(const http::response<http::string_body>& res) {
    HttpReply reply;
    reply.status = static_cast<int>(res.result_int());
    for (const auto& field : res) {
      std::string name(field.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      reply.headers[name] = std::string(field.value());
    }
    reply.body = res.body();
    return reply;
  }
};

HttpConnection::HttpConnection(Endpoint endpoint) : impl_(std::make_unique<Impl>()) {
  impl_->endpoint = std::move(endpoint);
}

HttpConnection::~HttpConnection() { impl_->Close(); }

void HttpConnection::Close() { impl_->Close(); }

bool HttpConnection::last_request_sent() const { return impl_->sent; }

void HttpConnection::set_connect_timeout(std::chrono::milliseconds timeout) {
  impl_->connect_timeout = timeout;
}

void HttpConnection::Interrupt() {
  impl_->interrupted = true;
  // Runs on the thread that is inside io.run(), if any; otherwise the flag stops the next call.
  net::post(impl_->io, [im = impl_.get()] {
    beast::error_code ec;
    if (im->secure) beast::get_lowest_layer(*im->secure).socket().close(ec);
    if (im->plain) im->plain->socket().close(ec);
  });
}

namespace {
Status Interrupted() { return Status::Unavailable("interrupted"); }
}  // namespace

Result<HttpReply> HttpConnection::Request(
    const std::string& method, const std::string& target,
    const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
    std::chrono::milliseconds timeout) {
  Impl& im = *impl_;
  im.sent = false;
  if (im.interrupted) return Interrupted();
  if (im.stream_parser) im.Close();  // a finished or abandoned stream cannot carry requests
  // One deadline for the whole call: every step (connect, handshake, write, read, the retry)
  // gets what is left of it.
  const Impl::Deadline deadline = std::chrono::steady_clock::now() + timeout;
  // A kept-alive connection may have been closed by the server meanwhile: retry once on a
  // fresh connection when the old one fails before any reply byte.
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = im.connected();
    if (!reused) {
      if (Status s = im.Connect(deadline); !s.ok()) return s;
    }
    auto req = im.MakeRequest(method, target, headers, body);
    im.sent = true;
    beast::error_code ec = im.Write(req, deadline);
    http::response_parser<http::string_body> parser;
    parser.body_limit(256 * 1024 * 1024);
    if (!ec) ec = im.Read(parser, deadline, false);
    if (ec) {
      im.Close();
      if (reused && ec != beast::error::timeout) continue;
      return TransportError(im.endpoint, "request to", ec);
    }
    auto res = parser.release();
    bool keep = res.keep_alive();
    HttpReply reply = Impl::ToReply(res);
    if (!keep) im.Close();
    return reply;
  }
  return Status::Unavailable("request failed");
}

Result<HttpReply> HttpConnection::StartStream(
    const std::string& target, const std::vector<std::pair<std::string, std::string>>& headers,
    std::chrono::milliseconds timeout) {
  Impl& im = *impl_;
  im.sent = false;
  if (im.interrupted) return Interrupted();
  im.Close();
  const Impl::Deadline deadline = std::chrono::steady_clock::now() + timeout;
  if (Status s = im.Connect(deadline); !s.ok()) return s;
  auto req = im.MakeRequest("GET", target, headers, "");
  im.sent = true;
  beast::error_code ec = im.Write(req, deadline);
  if (ec) {
    im.Close();
    return TransportError(im.endpoint, "request to", ec);
  }
  im.stream_parser.emplace();
  im.stream_parser->body_limit(boost::none);
  im.stream_parser->on_chunk_body(im.on_chunk);
  ec = im.Read(*im.stream_parser, deadline, true);
  if (ec) {
    im.Close();
    return TransportError(im.endpoint, "request to", ec);
  }
  HttpReply reply;
  reply.status = static_cast<int>(im.stream_parser->get().result_int());
  if (!im.stream_parser->chunked()) {
    // Not a stream (an error Status, say): read the whole body.
    ec = im.Read(*im.stream_parser, deadline, false);
    reply.body = im.stream_parser->get().body();
    im.Close();
    if (ec) return TransportError(im.endpoint, "reading from", ec);
  }
  return reply;
}

Result<std::string> HttpConnection::ReadLine(std::chrono::milliseconds timeout) {
  Impl& im = *impl_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (im.interrupted) return Interrupted();
    size_t newline = im.pending.find('\n');
    if (newline != std::string::npos) {
      std::string line = im.pending.substr(0, newline);
      im.pending.erase(0, newline + 1);
      return line;
    }
    if (!im.stream_parser || im.stream_parser->is_done()) {
      return Status::NotFound("end of stream");
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Status::Timeout("no watch event within the deadline");
    beast::error_code ec;
    im.lowest().expires_after(left);
    auto done = [&](beast::error_code e, size_t) { ec = e; };
    if (im.secure) {
      http::async_read_some(*im.secure, im.buffer, *im.stream_parser, done);
    } else {
      http::async_read_some(*im.plain, im.buffer, *im.stream_parser, done);
    }
    im.Run();
    if (ec == beast::error::timeout) {
      // The stream itself is fine; only the wait ran out. The socket's timer closed it though.
      im.Close();
      return Status::Timeout("no watch event within the deadline");
    }
    if (ec == http::error::end_of_stream || ec == net::error::eof) {
      im.stream_parser.reset();
      continue;  // drain what is pending, then report the end
    }
    if (ec) {
      im.Close();
      return TransportError(im.endpoint, "reading from", ec);
    }
  }
}

}  // namespace tenure::client
