// HttpConnection: HTTP/1.1 requests and streamed replies over a Transport; replies are parsed by
// Boost.Beast's parser, fed by hand (no Asio I/O, no event loop).
#include <utility>  // before beast (Boost 1.74 with GCC 12)

#include "client/http_connection.h"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <functional>
#include <limits>
#include <optional>

#include "client/transport.h"

namespace tenure::client {

namespace http = boost::beast::http;

namespace {

using Deadline = Transport::Deadline;
using Parser = http::response_parser<http::string_body>;

Status Interrupted() { return Status::Unavailable("interrupted"); }

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// RFC 9110's token: a method or a header name.
bool IsToken(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f ||
        std::string_view("\"(),/:;<=>?@[\\]{}").find(c) != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// A header value or a request target must not end the line it is written on.
bool FitsOnALine(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

std::string HostHeader(const Endpoint& endpoint) {
  std::string port = std::to_string(endpoint.port);
  return endpoint.host.find(':') != std::string::npos ? "[" + endpoint.host + "]:" + port
                                                      : endpoint.host + ":" + port;
}

// The request as it goes on the wire. The caller's Host or User-Agent replaces the default one.
Result<std::string> Serialize(const Endpoint& endpoint, const std::string& method,
                              const std::string& target,
                              const std::vector<std::pair<std::string, std::string>>& headers,
                              const std::string& body) {
  if (!IsToken(method)) return Status::BadRequest("the HTTP method \"" + method + "\" is invalid");
  if (target.empty() || target.find(' ') != std::string::npos || !FitsOnALine(target)) {
    return Status::BadRequest(
        "the request target cannot be sent: it is empty or holds a space "
        "or a line break");
  }
  bool has_host = false, has_agent = false;
  size_t size = method.size() + target.size() + body.size() + 96;
  for (const auto& [name, value] : headers) {
    if (!IsToken(name)) return Status::BadRequest("the header name \"" + name + "\" is invalid");
    if (!FitsOnALine(value)) {
      return Status::BadRequest("the value of the header " + name +
                                " cannot be sent: it holds a line break or a NUL");
    }
    has_host = has_host || SameName(name, "Host");
    has_agent = has_agent || SameName(name, "User-Agent");
    size += name.size() + value.size() + 4;
  }
  std::string wire;
  wire.reserve(size);
  wire.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
  if (!has_host) wire.append("Host: ").append(HostHeader(endpoint)).append("\r\n");
  if (!has_agent) wire.append("User-Agent: tenure/0.1\r\n");
  for (const auto& [name, value] : headers) {
    wire.append(name).append(": ").append(value).append("\r\n");
  }
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    wire.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  wire.append("\r\n").append(body);
  return wire;
}

HttpReply ToReply(Parser& parser) {
  auto& res = parser.get();
  HttpReply reply;
  reply.status = static_cast<int>(res.result_int());
  for (const auto& field : res) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(field.value());
  }
  reply.body = std::move(res.body());
  return reply;
}

}  // namespace

struct HttpConnection::Impl {
  explicit Impl(Endpoint endpoint) : transport(std::move(endpoint)) {}

  Transport transport;
  bool sent = false;  // the last request wrote (part of) itself
  std::chrono::milliseconds connect_timeout{0};
  std::string received;  // bytes read and not parsed yet
  // Streaming state.
  std::optional<Parser> stream_parser;
  std::string pending;
  // Beast keeps a reference to the chunk callback: it lives here, beside the parser.
  std::function<std::size_t(std::uint64_t, boost::beast::string_view, boost::beast::error_code&)>
      on_chunk = [this](std::uint64_t, boost::beast::string_view data,
                        boost::beast::error_code&) -> std::size_t {
    pending.append(data.data(), data.size());
    return data.size();
  };

  const Endpoint& endpoint() const { return transport.endpoint(); }

  void Close() {
    transport.Close();
    stream_parser.reset();
    received.clear();
    pending.clear();
  }

  // "request to h:p: Connection reset by peer", keeping the reason (Timeout or Unavailable).
  Status Named(const std::string& what, const Status& detail) const {
    if (transport.interrupted()) return Interrupted();
    std::string text = what + " " + endpoint().host + ":" + std::to_string(endpoint().port) + ": ";
    if (detail.reason() == Reason::kTimeout) return Status::Timeout(text + "timed out");
    return Status::Unavailable(text + detail.message());
  }

  Status Connect(Deadline deadline) {
    Close();
    if (connect_timeout.count() > 0) {
      deadline = std::min(deadline, std::chrono::steady_clock::now() + connect_timeout);
    }
    return transport.Connect(deadline);
  }

  // Gives the parser what was received: true when it took some, false when it needs more bytes.
  Result<bool> Feed(Parser& parser) {
    if (received.empty()) return false;
    boost::beast::error_code ec;
    size_t used = parser.put(boost::asio::buffer(received.data(), received.size()), ec);
    received.erase(0, used);
    if (ec && ec != http::error::need_more) return Status::Unavailable(ec.message());
    return used > 0;
  }

  // Feeds the parser what was received, reading more while it needs it, until the reply's head
  // (`head_only`) or the whole reply is parsed. Bytes after the reply stay in `received`.
  Status Parse(Parser& parser, Deadline deadline, bool head_only) {
    for (;;) {
      if (head_only ? parser.is_header_done() : parser.is_done()) return Status::Ok();
      auto fed = Feed(parser);
      if (!fed.ok()) return fed.status();
      if (*fed) continue;
      Status s = transport.ReadSome(received, deadline);
      if (s.reason() == Reason::kNotFound) {  // the server closed its side
        // Closed before the reply began: Beast's put_eof would take that as an empty reply.
        if (!parser.got_some()) return Status::Unavailable("end of stream");
        boost::beast::error_code ec;
        parser.put_eof(ec);
        if (ec) return Status::Unavailable(ec.message());
        continue;
      }
      if (!s.ok()) return s;
    }
  }
};

HttpConnection::HttpConnection(Endpoint endpoint)
    : impl_(std::make_unique<Impl>(std::move(endpoint))) {}

HttpConnection::~HttpConnection() = default;

void HttpConnection::Close() { impl_->Close(); }

bool HttpConnection::last_request_sent() const { return impl_->sent; }

void HttpConnection::set_connect_timeout(std::chrono::milliseconds timeout) {
  impl_->connect_timeout = timeout;
}

void HttpConnection::Interrupt() { impl_->transport.Interrupt(); }

Result<HttpReply> HttpConnection::Request(
    const std::string& method, const std::string& target,
    const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
    std::chrono::milliseconds timeout) {
  Impl& im = *impl_;
  im.sent = false;
  if (im.transport.interrupted()) return Interrupted();
  if (im.stream_parser) im.Close();  // a finished or abandoned stream cannot carry requests
  auto wire = Serialize(im.endpoint(), method, target, headers, body);
  if (!wire.ok()) return wire.status();
  // One deadline for the whole call: every step (connect, handshake, write, read, the retry)
  // gets what is left of it.
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  // A kept-alive connection may have been closed by the server meanwhile: retry once on a
  // fresh connection when the old one fails before any reply byte.
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool reused = im.transport.connected();
    if (!reused) {
      if (Status s = im.Connect(deadline); !s.ok()) return s;
    }
    im.sent = true;
    Parser parser;
    parser.body_limit(256 * 1024 * 1024);
    parser.eager(true);
    Status s = im.transport.Write(*wire, deadline);
    if (s.ok()) s = im.Parse(parser, deadline, false);
    if (!s.ok()) {
      im.Close();
      if (im.transport.interrupted()) return Interrupted();
      if (reused && s.reason() != Reason::kTimeout) continue;
      return im.Named("request to", s);
    }
    bool keep = parser.get().keep_alive();
    HttpReply reply = ToReply(parser);
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
  if (im.transport.interrupted()) return Interrupted();
  auto wire = Serialize(im.endpoint(), "GET", target, headers, "");
  if (!wire.ok()) return wire.status();
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  if (Status s = im.Connect(deadline); !s.ok()) return s;
  im.sent = true;
  if (Status s = im.transport.Write(*wire, deadline); !s.ok()) {
    im.Close();
    return im.Named("request to", s);
  }
  im.stream_parser.emplace();
  // Unbounded, but as a number: Beast 1.74 compares a Content-Length with an empty optional
  // limit as greater, so an answer that is not a stream (a 401, a 503) failed with "body limit
  // exceeded" instead of giving its status.
  im.stream_parser->body_limit(std::numeric_limits<std::uint64_t>::max());
  im.stream_parser->on_chunk_body(im.on_chunk);
  if (Status s = im.Parse(*im.stream_parser, deadline, true); !s.ok()) {
    im.Close();
    return im.Named("request to", s);
  }
  HttpReply reply;
  reply.status = static_cast<int>(im.stream_parser->get().result_int());
  if (!im.stream_parser->chunked()) {
    // Not a stream (an error Status, say): read the whole body.
    Status s = im.Parse(*im.stream_parser, deadline, false);
    reply.body = im.stream_parser->get().body();
    im.Close();
    if (!s.ok()) return im.Named("reading from", s);
  }
  return reply;
}

Result<std::string> HttpConnection::ReadLine(std::chrono::milliseconds timeout) {
  Impl& im = *impl_;
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (im.transport.interrupted()) return Interrupted();
    size_t newline = im.pending.find('\n');
    if (newline != std::string::npos) {
      std::string line = im.pending.substr(0, newline);
      im.pending.erase(0, newline + 1);
      return line;
    }
    if (!im.stream_parser || im.stream_parser->is_done()) {
      return Status::NotFound("end of stream");
    }
    auto fed = im.Feed(*im.stream_parser);
    if (!fed.ok()) {
      im.Close();
      return im.Named("reading from", fed.status());
    }
    if (*fed) continue;
    Status s = im.transport.ReadSome(im.received, deadline);
    // Only the wait ran out: the stream stays readable.
    if (s.reason() == Reason::kTimeout)
      return Status::Timeout("no watch event within the deadline");
    if (s.reason() == Reason::kNotFound) {
      im.stream_parser.reset();
      continue;  // drain what is pending, then report the end
    }
    if (!s.ok()) {
      im.Close();
      return im.Named("reading from", s);
    }
  }
}

}  // namespace tenure::client
