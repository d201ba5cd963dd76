// Boost.Beast is confined to this file: it parses requests; responses are written as raw
// HTTP/1.1 bytes (simple and fast, and chunked framing for streams is a few lines).
#include <utility>  // before asio: Boost 1.74 coroutines under GCC 12 need std::exchange

#include "server/http_server.h"

#include <pthread.h>
#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "api/status_object.h"
#include "server/certificates.h"
#include "server/connection_limits.h"
#include "server/http_request_beast.h"
#include "server/stack_thread.h"
#include "server/tls_context.h"
#include "tenure/log.h"

namespace tenure::server {

HttpResponse TextResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using net::awaitable;
using net::use_awaitable;

namespace {

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Request Entity Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Status";
  }
}

std::string StatusLine(int status) {
  return "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) + "\r\n";
}

// `with_body` false: the answer to HEAD, whose Content-Length tells what GET would send.
std::string SerializeResponse(const HttpResponse& r, bool keep_alive, bool with_body = true) {
  std::string out = StatusLine(r.status);
  out.reserve(out.size() + 160 + r.body.size());
  if (!r.content_type.empty()) out += "Content-Type: " + r.content_type + "\r\n";
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  out += "Cache-Control: no-cache, private\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  if (with_body) out += r.body;
  return out;
}

void AppendChunk(std::string& out, const std::string& chunk) {
  char size[32];
  int n = std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
  out.append(size, static_cast<size_t>(n));
  out += chunk;
  out += "\r\n";
}

// Shared by the handler (any thread) and the session coroutine (the connection's strand).
// The timer is the coroutine's wake-up signal; it is only touched on the strand.
class Mailbox : public Responder, public std::enable_shared_from_this<Mailbox> {
 public:
  using Executor = net::strand<net::io_context::executor_type>;

  // Holds the io_context so the timer stays valid when a store callback outlives the server.
  Mailbox(Executor strand, std::shared_ptr<net::io_context> io, size_t max_stream_buffer)
      : io_(std::move(io)), strand_(strand), timer_(strand), max_buffered_(max_stream_buffer) {}

  class Stream final : public ResponseStream {
   public:
    explicit Stream(std::shared_ptr<Mailbox> box) : box_(std::move(box)) {}
    bool Write(std::string chunk, bool bounded) override {
      bool first = false;
      {
        std::lock_guard lock(box_->mu_);
        if (box_->stream_closed_ || box_->stream_closing_) return false;
        if (bounded && box_->buffered_ + chunk.size() > box_->max_buffered_) {
          box_->overflowed_ = true;
          return false;
        }
        box_->buffered_ += chunk.size();
        first = box_->chunks_.empty();
        box_->chunks_.push_back(std::move(chunk));
      }
      // Only the chunk that finds the queue empty wakes the writer: for the others a wake is on
      // its way already, or the writer is writing and takes the queue again before it waits (a
      // watch's batch of events costs one wake-up, not one per event).
      if (first) box_->Wake();
      return true;
    }
    bool overflowed() const override {
      std::lock_guard lock(box_->mu_);
      return box_->overflowed_;
    }
    void Close(std::string last) override {
      {
        std::lock_guard lock(box_->mu_);
        if (box_->stream_closed_ || box_->stream_closing_) return;
        if (!last.empty()) box_->chunks_.push_back(std::move(last));
        box_->stream_closing_ = true;
      }
      box_->Wake();
    }
    bool closed() const override {
      std::lock_guard lock(box_->mu_);
      return box_->stream_closed_ || box_->stream_closing_;
    }
    void OnClose(std::function<void()> on_close) override {
      bool run_now = false;
      {
        std::lock_guard lock(box_->mu_);
        if (box_->stream_closed_) {
          run_now = true;
        } else {
          box_->on_close_.push_back(std::move(on_close));
        }
      }
      if (run_now) on_close();
    }

   private:
    std::shared_ptr<Mailbox> box_;
  };

  void Reply(HttpResponse response) override {
    {
      std::lock_guard lock(mu_);
      if (answered_) return;
      answered_ = true;
      reply_ = std::move(response);
    }
    Wake();
  }

  void ReplyWith(std::function<HttpResponse()> make) override {
    {
      std::lock_guard lock(mu_);
      if (answered_) return;
      answered_ = true;
      make_reply_ = std::move(make);
    }
    Wake();
  }

  void AnswerBy(std::chrono::steady_clock::time_point deadline) override {
    {
      std::lock_guard lock(mu_);
      if (answered_ || deadline >= answer_by_) return;
      answer_by_ = deadline;
      // The wait reads answer_by_ when it starts: woken only when already waiting for later (a
      // handler that answers inline sets it before, and costs no wake-up).
      if (waiting_until_ <= deadline) return;
    }
    Wake();
  }

  void OnAnswered(std::function<void(int status)> answered) override {
    std::lock_guard lock(mu_);
    on_answered_ = std::move(answered);
  }

  // The status line is being written: tells OnAnswered's callback, once.
  void Answered(int status) {
    std::function<void(int)> answered;
    {
      std::lock_guard lock(mu_);
      answered.swap(on_answered_);
    }
    if (answered) answered(status);
  }

  // An exception of the posted work (a bug) is answered 500 like one of a handler.
  void Post(std::function<void()> work) override {
    net::post(strand_, [work = std::move(work), self = shared_from_this()] {
      try {
        work();
      } catch (const std::exception& e) {
        Log(LogLevel::kError, "server", "request handler failed", {{"error", e.what()}});
        HttpResponse r;
        r.status = 500;
        r.body = api::StatusToJsonText(
            Status::Internal(std::string("the server failed to handle the request: ") + e.what()));
        self->Reply(std::move(r));
      }
    });
  }

  std::shared_ptr<ResponseStream> Stream(int status, std::string content_type,
                                         std::chrono::steady_clock::time_point deadline,
                                         std::chrono::milliseconds idle_interval,
                                         std::function<void()> idle) override {
    auto stream = std::make_shared<class Stream>(shared_from_this());
    {
      std::lock_guard lock(mu_);
      if (answered_) return stream;
      answered_ = true;
      streaming_ = true;
      stream_status_ = status;
      stream_content_type_ = std::move(content_type);
      deadline_ = deadline;
      idle_interval_ = idle_interval;
      idle_ = std::move(idle);
    }
    Wake();
    return stream;
  }

  // Weak: a wake-up queued in a stopped io_context must not keep the mailbox (and through it
  // the io_context) alive.
  void Wake() {
    net::post(strand_, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->timer_.cancel();
    });
  }

  // Marks the stream ended and runs the close callbacks (outside the lock).
  void EndStream() {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mu_);
      if (stream_closed_) return;
      stream_closed_ = true;
      callbacks.swap(on_close_);
      chunks_.clear();
    }
    for (auto& cb : callbacks) cb();
  }

  mutable std::mutex mu_;
  std::shared_ptr<net::io_context> io_;
  Executor strand_;
  net::steady_timer timer_;
  bool answered_ = false;
  // The server answers 504 itself past this: its request timeout, or the client's (AnswerBy).
  std::chrono::steady_clock::time_point answer_by_ = std::chrono::steady_clock::time_point::max();
  // Until when the connection's wait for the answer is armed; min: not waiting yet.
  std::chrono::steady_clock::time_point waiting_until_ =
      std::chrono::steady_clock::time_point::min();
  std::optional<HttpResponse> reply_;
  std::function<HttpResponse()> make_reply_;  // ReplyWith: run on the strand when answered
  std::function<void(int)> on_answered_;      // OnAnswered's callback, until it ran
  bool streaming_ = false;
  int stream_status_ = 200;
  std::string stream_content_type_;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::milliseconds idle_interval_{0};
  std::function<void()> idle_;
  std::deque<std::string> chunks_;
  // Bytes queued in chunks_ or being written (a Close's last chunk not counted).
  size_t buffered_ = 0;
  const size_t max_buffered_;
  bool overflowed_ = false;
  bool stream_closing_ = false;
  bool stream_closed_ = false;
  bool client_gone_ = false;
  bool hangup_watch_running_ = false;
  std::vector<std::function<void()>> on_close_;
};

class HttpServerImpl;

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Bytes of large request bodies the server holds at once (being read, or in requests not answered
// yet): a claim on `held` that is given back when destroyed; empty when refused.
class BodyReservation {
 public:
  BodyReservation() = default;
  static BodyReservation Take(std::shared_ptr<std::atomic<size_t>> held, size_t bytes,
                              size_t limit) {
    size_t now = held->load();
    do {
      if (now + bytes > limit) return {};
    } while (!held->compare_exchange_weak(now, now + bytes));
    BodyReservation r;
    r.held_ = std::move(held);
    r.bytes_ = bytes;
    return r;
  }
  BodyReservation(BodyReservation&& other) noexcept
      : held_(std::move(other.held_)), bytes_(std::exchange(other.bytes_, 0)) {}
  BodyReservation& operator=(BodyReservation&& other) noexcept {
    Release();
    held_ = std::move(other.held_);
    bytes_ = std::exchange(other.bytes_, 0);
    return *this;
  }
  ~BodyReservation() { Release(); }
  explicit operator bool() const { return held_ != nullptr; }

 private:
  void Release() {
    if (held_) held_->fetch_sub(bytes_);
    held_.reset();
  }
  std::shared_ptr<std::atomic<size_t>> held_;
  size_t bytes_ = 0;
};

// What Stop() and the timeout sweeper need to end a connection: its socket (null once the
// connection is gone) and the mailbox it may be waiting on; touched only on the connection's
// strand. `deadline_ns` (steady clock, 0: none) bounds the current read or write: one sweeper
// checks every connection each second instead of a timer being re-armed on every operation.
struct Connection {
  explicit Connection(Mailbox::Executor s) : strand(std::move(s)) {}

  const Mailbox::Executor strand;
  std::string remote_address;  // the peer's IP, for every request of the connection
  tcp::socket* socket = nullptr;
  std::weak_ptr<Mailbox> waiting;
  std::atomic<int64_t> deadline_ns{0};
  // Counts Arm and Disarm calls: the sweeper's close, posted to the strand, happens only if the
  // deadline it found expired is still the current one (not a later phase's).
  std::atomic<uint64_t> arms{0};
  bool timed_out = false;

  void Arm(std::chrono::nanoseconds timeout) {
    arms.fetch_add(1, std::memory_order_relaxed);
    deadline_ns.store(SteadyNowNs() + timeout.count(), std::memory_order_relaxed);
  }
  void Disarm() {
    arms.fetch_add(1, std::memory_order_relaxed);
    deadline_ns.store(0, std::memory_order_relaxed);
  }
};

// Clears Connection::socket when the stream that owns the socket is destroyed (declared after
// the stream, so it runs first).
struct SocketGone {
  Connection* connection;
  ~SocketGone() { connection->socket = nullptr; }
};

template <typename Stream>
class Session {
 public:
  Session(Stream& stream, HttpServerImpl& server, Mailbox::Executor strand, bool tls,
          std::shared_ptr<Connection> connection,
          std::shared_ptr<const ClientCertificate> client_certificate = nullptr)
      : stream_(stream),
        server_(server),
        strand_(strand),
        tls_(tls),
        connection_(std::move(connection)),
        client_certificate_(std::move(client_certificate)) {}
  awaitable<void> Run();

 private:
  awaitable<bool> WriteAll(std::string data) {
    beast::error_code ec;
    connection_->Arm(std::chrono::seconds(30));
    co_await net::async_write(stream_, net::buffer(data), net::redirect_error(use_awaitable, ec));
    connection_->Disarm();
    co_return !ec;
  }
  // After an answer to a request whose body was not read (413): reads and drops what the
  // client still sends, for a bounded time and amount, so that closing the connection does
  // not reset it before the client has read the answer.
  awaitable<void> DrainBeforeClose() {
    constexpr size_t kMaxDrainBytes = size_t{64} << 20;
    connection_->Arm(std::chrono::seconds(5));
    std::vector<char> scratch(64 * 1024);
    size_t drained = 0;
    beast::error_code ec;
    while (drained < kMaxDrainBytes) {
      drained += co_await stream_.async_read_some(net::buffer(scratch),
                                                  net::redirect_error(use_awaitable, ec));
      if (ec) break;
    }
    connection_->Disarm();
  }
  awaitable<void> WatchForHangup(std::shared_ptr<Mailbox> box);
  awaitable<bool> ServeStream(std::shared_ptr<Mailbox> box);

  Stream& stream_;
  HttpServerImpl& server_;
  Mailbox::Executor strand_;
  bool tls_;
  std::shared_ptr<Connection> connection_;
  std::shared_ptr<const ClientCertificate> client_certificate_;
};

class HttpServerImpl final : public HttpServer {
 public:
  HttpServerImpl(const HttpServerOptions& options, std::shared_ptr<HttpHandler> handler)
      : options_(options),
        handler_(std::move(handler)),
        io_(std::make_shared<net::io_context>()),
        tls_context_(options.cert_file, options.key_file, options.client_ca_files),
        accept_strand_(net::make_strand(io_->get_executor())),
        acceptor_(accept_strand_),
        sweep_strand_(net::make_strand(io_->get_executor())),
        sweep_timer_(sweep_strand_) {}

  ~HttpServerImpl() override { Stop(); }

  Status Init() {
    // `tenure serve` raised the soft limit at start (RaiseOpenFileLimit); what is left after the
    // store's and the process's own files is for connections.
    size_t open_files = OpenFileLimit();
    size_t max_total = options_.max_connections;
    if (max_total == 0) {
      max_total = std::min<size_t>(100000, open_files > 512 ? open_files - 256 : open_files / 2);
    }
    limits_ = ConnectionLimits::Make(max_total, options_.max_connections_per_client);
    if (options_.tls) {
      if (Status s = tls_context_.Load(); !s.ok()) return s;
    }
    beast::error_code ec;
    auto address = net::ip::make_address(options_.address, ec);
    if (ec) return Status::BadRequest("invalid listen address " + options_.address);
    tcp::endpoint endpoint(address, options_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return Status::Unavailable("cannot listen on " + options_.address + ":" +
                                 std::to_string(options_.port) + ": " + ec.message());
    }
    port_ = acceptor_.local_endpoint().port();
    // On the acceptor's strand, like Stop()'s close: the two must not run at the same time.
    net::co_spawn(accept_strand_, Accept(), net::detached);
    net::co_spawn(sweep_strand_, SweepTimeouts(), net::detached);
    int threads =
        options_.threads > 0 ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
    running_threads_ = threads;
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back(kHandlerStackBytes, [this] {
        pthread_setname_np(pthread_self(), "tenure-http");
        io_->run();
        std::lock_guard lock(threads_mu_);
        --running_threads_;
        threads_done_.notify_all();
      });
    }
    return Status::Ok();
  }

  uint16_t port() const override { return port_; }

  // Ends every connection so that the io_context runs out of work; forces it after a grace
  // period (a peer that does not read can hold a write for a while).
  void Stop() override {
    if (stopped_.exchange(true)) return;
    net::post(acceptor_.get_executor(), [this] {
      beast::error_code ec;
      acceptor_.close(ec);
    });
    net::post(sweep_strand_, [this] { sweep_timer_.cancel(); });
    {
      std::lock_guard lock(connections_mu_);
      for (const auto& weak : connections_) {
        auto connection = weak.lock();
        if (!connection) continue;
        net::post(connection->strand, [connection] {
          if (connection->socket == nullptr) return;
          beast::error_code ec;
          connection->socket->close(ec);
          if (auto box = connection->waiting.lock()) box->timer_.cancel();
        });
      }
    }
    {
      std::unique_lock lock(threads_mu_);
      threads_done_.wait_for(lock, std::chrono::seconds(3),
                             [this] { return running_threads_ == 0; });
    }
    io_->stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  std::shared_ptr<net::io_context> io() const { return io_; }

  void Register(const std::shared_ptr<Connection>& connection) {
    std::lock_guard lock(connections_mu_);
    std::erase_if(connections_, [](const auto& w) { return w.expired(); });
    connections_.push_back(connection);
  }

  HttpHandler& handler() { return *handler_; }
  const HttpServerOptions& options() const { return options_; }
  size_t large_body_bytes() const override { return large_bodies_->load(); }
  BodyReservation ReserveLargeBody(size_t bytes) {
    return BodyReservation::Take(large_bodies_, bytes, options_.max_large_body_bytes);
  }
  bool stopping() const { return stopped_.load(); }

 private:
  awaitable<void> Accept() {
    net::steady_timer pause(accept_strand_);
    auto backoff = std::chrono::milliseconds(0);
    for (;;) {
      beast::error_code ec;
      auto strand = net::make_strand(io_->get_executor());
      tcp::socket socket(strand);
      co_await acceptor_.async_accept(socket, net::redirect_error(use_awaitable, ec));
      if (ec) {
        if (!acceptor_.is_open()) co_return;
        // Out of file descriptors (or another failure): the pending connection stays in the
        // backlog and accepting again at once would spin. Wait, longer each time (5 ms to 1 s).
        backoff =
            std::clamp(backoff * 2, std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
        pause.expires_after(backoff);
        co_await pause.async_wait(net::redirect_error(use_awaitable, ec));
        if (!acceptor_.is_open()) co_return;
        continue;
      }
      backoff = std::chrono::milliseconds(0);
      auto remote = socket.remote_endpoint(ec);
      if (ec) {
        socket.close(ec);  // gone already (reset before it was accepted)
        continue;
      }
      std::shared_ptr<void> place = limits_->Admit(remote.address().to_string(ec));
      if (place == nullptr) {
        socket.close(ec);  // a limit is reached: this connection is not served
        continue;
      }
      socket.set_option(tcp::no_delay(true), ec);
      net::co_spawn(strand, Serve(std::move(socket), strand, std::move(place)), net::detached);
    }
  }

  // Closes connections whose read or write outlived its deadline (see Connection).
  awaitable<void> SweepTimeouts() {
    while (!stopping()) {
      sweep_timer_.expires_after(std::chrono::seconds(1));
      beast::error_code ec;
      co_await sweep_timer_.async_wait(net::redirect_error(use_awaitable, ec));
      // A renewed certificate is served from the next connection on.
      if (options_.tls) tls_context_.ReloadIfChanged();
      int64_t now = SteadyNowNs();
      std::lock_guard lock(connections_mu_);
      for (const auto& weak : connections_) {
        auto connection = weak.lock();
        if (!connection) continue;
        uint64_t generation = connection->arms.load();
        int64_t deadline = connection->deadline_ns.load();
        if (deadline == 0 || deadline > now) continue;
        // Closes only if the session has not moved on (armed a later phase, or finished the
        // read) since: neither here nor when the close runs on the strand.
        if (!connection->deadline_ns.compare_exchange_strong(deadline, 0)) continue;
        if (connection->arms.load() != generation) continue;
        net::post(connection->strand, [connection, generation] {
          if (connection->socket == nullptr || connection->arms.load() != generation) return;
          connection->timed_out = true;
          beast::error_code ec;
          connection->socket->close(ec);
        });
      }
    }
  }

  // `place`: the connection's place in the limits, freed when the connection ends.
  awaitable<void> Serve(tcp::socket socket, Mailbox::Executor strand, std::shared_ptr<void> place) {
    std::shared_ptr<void> held = std::move(place);  // until this coroutine ends
    auto connection = std::make_shared<Connection>(strand);
    {
      beast::error_code ec;
      auto peer = socket.remote_endpoint(ec);
      if (!ec) connection->remote_address = peer.address().to_string();
    }
    if (options_.tls) {
      // The context is kept as long as the connection: a reload does not pull it away.
      std::shared_ptr<net::ssl::context> context = tls_context_.Current();
      beast::ssl_stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(socket)), *context);
      connection->socket = &beast::get_lowest_layer(stream).socket();
      SocketGone gone{connection.get()};
      Register(connection);
      if (stopping()) co_return;
      beast::error_code ec;
      beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(30));
      co_await stream.async_handshake(net::ssl::stream_base::server,
                                      net::redirect_error(use_awaitable, ec));
      if (ec) co_return;
      beast::get_lowest_layer(stream).expires_never();  // from here Connection::Arm bounds I/O
      bool presented = false;
      ClientCertificate peer = PeerCertificateOf(stream.native_handle(), presented);
      Session<decltype(stream)> session(
          stream, *this, strand, true, connection,
          presented ? std::make_shared<const ClientCertificate>(std::move(peer)) : nullptr);
      co_await session.Run();
      if (stopping()) co_return;
      beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(2));
      co_await stream.async_shutdown(net::redirect_error(use_awaitable, ec));
    } else {
      beast::tcp_stream stream(std::move(socket));
      connection->socket = &stream.socket();
      SocketGone gone{connection.get()};
      Register(connection);
      if (stopping()) co_return;
      Session<beast::tcp_stream> session(stream, *this, strand, false, connection);
      co_await session.Run();
      beast::error_code ec;
      stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    }
  }

  HttpServerOptions options_;
  std::shared_ptr<HttpHandler> handler_;
  std::shared_ptr<net::io_context> io_;
  TlsContextSource tls_context_;
  Mailbox::Executor accept_strand_;
  tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::vector<StackThread> threads_;          // handlers recurse over client JSON: a known stack
  std::shared_ptr<ConnectionLimits> limits_;  // shared with every open connection's place
  std::shared_ptr<std::atomic<size_t>> large_bodies_ = std::make_shared<std::atomic<size_t>>(0);
  std::atomic<bool> stopped_{false};
  std::mutex threads_mu_;
  std::condition_variable threads_done_;
  int running_threads_ = 0;
  std::mutex connections_mu_;
  std::vector<std::weak_ptr<Connection>> connections_;
  Mailbox::Executor sweep_strand_;
  net::steady_timer sweep_timer_;
};

template <typename Stream>
awaitable<void> Session<Stream>::Run() {
  beast::flat_buffer buffer;
  for (;;) {
    BeastRequestParser parser;
    ConfigureParser(parser, server_.options().max_body_bytes);
    beast::error_code ec;
    // Three clocks, so that a client sending a byte now and then cannot hold a connection: the
    // idle time before a request's first byte, the time for its head, the time for its body.
    connection_->Arm(server_.options().idle_timeout);
    if (buffer.size() == 0) {
      size_t n = co_await stream_.async_read_some(buffer.prepare(16 * 1024),
                                                  net::redirect_error(use_awaitable, ec));
      buffer.commit(n);
    }
    if (!ec) {
      connection_->Arm(server_.options().header_timeout);
      co_await http::async_read_header(stream_, buffer, parser,
                                       net::redirect_error(use_awaitable, ec));
    }
    // A large body (or one of unknown length) is read only while the server holds less than
    // max_large_body_bytes of them, until this request is answered: past it, 429 before reading.
    // Small bodies (a renewal's) never wait for it; the connection caps bound those.
    BodyReservation large_body;
    const auto head_received = std::chrono::steady_clock::now();
    if (!ec && !parser.is_done()) {
      const HttpServerOptions& o = server_.options();
      size_t declared =
          std::min<size_t>(parser.content_length().value_or(o.max_body_bytes), o.max_body_bytes);
      if (declared > o.small_body_bytes) {
        large_body = server_.ReserveLargeBody(declared);
        if (!large_body) {
          connection_->Disarm();
          HttpResponse r = server_.handler().Reject(
              Status(Reason::kTooManyRequests, "Too many requests, please try again later."));
          r.headers.emplace_back("Retry-After", "1");
          if (co_await WriteAll(SerializeResponse(r, false))) co_await DrainBeforeClose();
          co_return;
        }
      }
      connection_->Arm(o.body_timeout);
      co_await http::async_read(stream_, buffer, parser, net::redirect_error(use_awaitable, ec));
    }
    connection_->Disarm();
    if (connection_->timed_out) co_return;
    if (ec == http::error::body_limit) {
      HttpResponse r = server_.handler().Reject(Status(
          Reason::kRequestEntityTooLarge, "Request entity too large: limit is " +
                                              std::to_string(server_.options().max_body_bytes)));
      if (co_await WriteAll(SerializeResponse(r, false))) co_await DrainBeforeClose();
      co_return;
    }
    if (ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == net::ssl::error::stream_truncated || ec == beast::error::timeout) {
      co_return;
    }
    if (ec) {
      if (parser.got_some() && ec != net::error::connection_reset) {
        HttpResponse r = server_.handler().Reject(Status::BadRequest("malformed HTTP request"));
        co_await WriteAll(SerializeResponse(r, false));
      }
      co_return;
    }
    bool keep_alive = parser.get().keep_alive();
    bool head = parser.get().method() == http::verb::head;
    if (server_.stopping()) co_return;
    auto box =
        std::make_shared<Mailbox>(strand_, server_.io(), server_.options().max_stream_buffer_bytes);
    connection_->waiting = box;
    {
      std::lock_guard lock(box->mu_);
      box->answer_by_ = std::chrono::steady_clock::now() + server_.options().request_timeout;
    }
    try {
      HttpRequest request = ToRequest(parser.release(), tls_);
      request.client_certificate = client_certificate_;
      request.remote_address = connection_->remote_address;
      request.received = head_received;
      server_.handler().Handle(std::move(request), box);
    } catch (const std::exception& e) {
      // A bug, not the client's fault; still an answer, never a connection closed without one.
      Log(LogLevel::kError, "server", "request handler failed", {{"error", e.what()}});
      box->Reply(server_.handler().Reject(
          Status::Internal(std::string("the server failed to handle the request: ") + e.what())));
    }
    // Wait for the handler's answer: it arrives through the mailbox, maybe from another thread.
    // AnswerBy may bring the time sooner meanwhile (it wakes this wait).
    for (;;) {
      std::chrono::steady_clock::time_point answer_by;
      {
        std::lock_guard lock(box->mu_);
        if (box->answered_) break;
        answer_by = box->answer_by_;
        box->waiting_until_ = answer_by;
        if (std::chrono::steady_clock::now() >= answer_by) {
          box->answered_ = true;
          box->reply_ = server_.handler().Reject(
              Status::Timeout("Timeout: request did not complete within the allotted timeout"));
          break;
        }
      }
      box->timer_.expires_at(answer_by);
      co_await box->timer_.async_wait(net::redirect_error(use_awaitable, ec));
      if (server_.stopping()) co_return;
    }
    if (box->streaming_) {
      co_await ServeStream(box);
      co_return;  // a stream ends the connection
    }
    if (!box->reply_) {
      // Answered through ReplyWith: build the response here, on the connection's strand.
      box->reply_ = box->make_reply_();
      box->make_reply_ = nullptr;
    }
    box->Answered(box->reply_->status);
    if (!co_await WriteAll(SerializeResponse(*box->reply_, keep_alive, !head))) co_return;
    if (!keep_alive) co_return;
  }
}

template <typename Stream>
awaitable<void> Session<Stream>::WatchForHangup(std::shared_ptr<Mailbox> box) {
  // A streaming client sends nothing more; a completed read means it closed or misbehaved.
  char byte;
  beast::error_code ec;
  co_await stream_.async_read_some(net::buffer(&byte, 1), net::redirect_error(use_awaitable, ec));
  {
    std::lock_guard lock(box->mu_);
    box->client_gone_ = true;
    box->hangup_watch_running_ = false;
  }
  box->timer_.cancel();
}

template <typename Stream>
awaitable<bool> Session<Stream>::ServeStream(std::shared_ptr<Mailbox> box) {
  box->Answered(box->stream_status_);
  std::string head = StatusLine(box->stream_status_);
  head += "Content-Type: " + box->stream_content_type_ + "\r\n";
  head += "Cache-Control: no-cache, private\r\nTransfer-Encoding: chunked\r\n\r\n";
  bool ok = co_await WriteAll(std::move(head));
  if (ok) {
    box->hangup_watch_running_ = true;
    net::co_spawn(strand_, WatchForHangup(box), net::detached);
  }
  auto next_idle = std::chrono::steady_clock::now() + box->idle_interval_;
  size_t writing = 0;
  while (ok) {
    std::string out;
    bool finish = false;
    {
      std::lock_guard lock(box->mu_);
      while (!box->chunks_.empty()) {
        AppendChunk(out, box->chunks_.front());
        box->chunks_.pop_front();
      }
      writing = box->buffered_;  // still counted while being written
      finish = box->client_gone_ || (box->stream_closing_ && out.empty());
    }
    auto now = std::chrono::steady_clock::now();
    if (!out.empty()) {
      ok = co_await WriteAll(std::move(out));
      {
        std::lock_guard lock(box->mu_);
        box->buffered_ -= std::min(writing, box->buffered_);
      }
      next_idle = now + box->idle_interval_;
      continue;
    }
    if (finish || now >= box->deadline_ || server_.stopping()) break;
    if (box->idle_interval_.count() > 0 && now >= next_idle) {
      next_idle = now + box->idle_interval_;
      if (box->idle_) box->idle_();
      continue;
    }
    auto wake = box->deadline_;
    if (box->idle_interval_.count() > 0) wake = std::min(wake, next_idle);
    beast::get_lowest_layer(stream_).expires_never();
    box->timer_.expires_at(wake);
    beast::error_code ec;
    co_await box->timer_.async_wait(net::redirect_error(use_awaitable, ec));
  }
  bool gone;
  {
    std::lock_guard lock(box->mu_);
    gone = box->client_gone_;
  }
  box->EndStream();
  if (ok && !gone) ok = co_await WriteAll("0\r\n\r\n");
  // WatchForHangup reads from stream_, which dies with this session: end it and wait for it.
  beast::get_lowest_layer(stream_).cancel();
  for (;;) {
    {
      std::lock_guard lock(box->mu_);
      if (!box->hangup_watch_running_) break;
    }
    box->timer_.expires_at(std::chrono::steady_clock::time_point::max());
    beast::error_code ec;
    co_await box->timer_.async_wait(net::redirect_error(use_awaitable, ec));
  }
  co_return ok;
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      std::shared_ptr<HttpHandler> handler) {
  if (options.max_large_body_bytes < options.max_body_bytes) {
    // A body of unknown length counts as max_body_bytes: it could never be read.
    return Status::BadRequest(
        "max_large_body_bytes (" + std::to_string(options.max_large_body_bytes) +
        ") must be at least max_body_bytes (" + std::to_string(options.max_body_bytes) + ")");
  }
  auto server = std::make_unique<HttpServerImpl>(options, std::move(handler));
  Status s = server->Init();
  if (!s.ok()) return s;
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace tenure::server
