// HttpServer: HTTP/1.1 (plain or TLS) front door. Knows nothing about Kubernetes.
//
// Each request is parsed (headers up to 64 KiB, body up to max_body_bytes: larger bodies get 413
// and the connection is closed; large bodies wait for nothing: past max_large_body_bytes held at
// once a request gets 429 before its body is read), then handed to the HttpHandler together with a
// Responder. The handler may answer from any thread, at once or later (after a store write),
// exactly once: either a whole HttpResponse or a stream (chunked transfer, used for watch).
// Connections are keep-alive. Boost.Beast stays inside http_server.cc so including this header is
// cheap.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tenure/status.h"

namespace tenure::server {

struct ClientCertificate;  // certificates.h

struct HttpRequest {
  std::string method;  // "GET"
  std::string target;  // "/api/v1/namespaces/default/configmaps?limit=500"
  std::string path;    // "/api/v1/namespaces/default/configmaps" (percent-decoded)
  std::multimap<std::string, std::string> query;  // decoded query parameters
  // Lower-case names, each once (repeated fields joined with ","), in arrival order: a request
  // has a handful, so a flat list is cheaper than a map.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool tls = false;
  std::string remote_address;  // the peer's IP address ("127.0.0.1"), "" outside the server
  // The certificate the TLS client presented (null: none), as the handshake verified it.
  std::shared_ptr<const ClientCertificate> client_certificate;
  // When the request's head had arrived (steady clock; unset outside the HTTP server): a
  // client's timeout counts from then, also while the request waits for a pool thread.
  std::chrono::steady_clock::time_point received{};

  std::string header(const std::string& lower_name) const;
  // The first value of a query parameter (kube-apiserver reads the first of a repeated one), or
  // "".
  std::string param(const std::string& name) const;
  bool has_param(const std::string& name) const;
};

// The values of a list header ("a, b,c"): split at commas, trimmed, empty ones dropped (repeated
// fields arrive joined with commas).
std::vector<std::string> HeaderValues(const std::string& value);

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// A text/plain response (health checks, simple endpoints).
HttpResponse TextResponse(int status, std::string body);

// The producing side of a streamed (chunked) response. Thread-safe.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Queues one chunk; false once the stream is closed (client went away or Close was called),
  // and when more than max_stream_buffer_bytes wait unsent (the client reads too slowly): then
  // overflowed() is true and the writer should end the stream, with Close(last) to tell why.
  // `bounded` false: the chunk does not count against the bound (a watch's initial state, which
  // is queued at once and as large as the collection; it still counts for what follows).
  virtual bool Write(std::string chunk, bool bounded = true) = 0;
  virtual bool overflowed() const = 0;
  // Ends the response after the queued chunks and `last` (beyond the buffer bound) are sent.
  virtual void Close(std::string last = "") = 0;
  virtual bool closed() const = 0;
  // `on_close` runs once when the stream ends for any reason (client gone, Close, shutdown).
  virtual void OnClose(std::function<void()> on_close) = 0;
};

class Responder {
 public:
  virtual ~Responder() = default;
  virtual void Reply(HttpResponse response) = 0;
  // Like Reply, but the response is built by `make`, which may run later on the connection's
  // own thread: a store callback hands its result over without rendering on the store thread.
  virtual void ReplyWith(std::function<HttpResponse()> make) { Reply(make()); }
  // Runs `work` later on one of the server's request threads (the connection's): a store
  // callback hands further work for the request (a patch redone after a conflict) back to the
  // threads with the handlers' stack, off the store's own. Not run once the server stopped.
  virtual void Post(std::function<void()> work) { work(); }
  // Starts a chunked response. `idle` runs every `idle_interval` while nothing is written (used
  // for watch bookmarks); the stream ends by itself at `deadline`.
  virtual std::shared_ptr<ResponseStream> Stream(int status, std::string content_type,
                                                 std::chrono::steady_clock::time_point deadline,
                                                 std::chrono::milliseconds idle_interval,
                                                 std::function<void()> idle) = 0;
  // The client waits for the answer only until `deadline` (its `?timeout=`): if the handler has
  // not answered by then, the server answers 504 itself, as it does at its own request timeout,
  // and the connection stays open for the next request. Only ever brings the time sooner.
  virtual void AnswerBy(std::chrono::steady_clock::time_point deadline) { (void)deadline; }
  // `answered` runs once with the status the client is actually sent (the reply's, a stream's,
  // or the server's own 504 when the handler took too long), as it is written. Never, for a
  // responder that writes nothing.
  virtual void OnAnswered(std::function<void(int status)> answered) { (void)answered; }
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  virtual void Handle(HttpRequest request, std::shared_ptr<Responder> responder) = 0;
  // The reply for a request that could not be parsed or was too large.
  virtual HttpResponse Reject(const Status& status) = 0;
};

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port
  bool tls = true;
  std::string cert_file;  // PEM certificate chain (tls)
  std::string key_file;   // PEM private key (tls)
  // CA bundles client certificates are verified against (tls; none: no client certificate is
  // asked for). The certificate, key and these files are read again when they change.
  std::vector<std::string> client_ca_files;
  size_t max_body_bytes = 3 * 1024 * 1024;
  int threads = 0;                         // 0: one per core
  std::chrono::seconds idle_timeout{300};  // a kept-alive connection waiting for its next request
  // From a request's first byte to the end of its head (kube-apiserver: 32 s), and then to the
  // end of its body.
  std::chrono::milliseconds header_timeout{32000};
  std::chrono::milliseconds body_timeout{60000};
  // What one streamed response (a watch) may hold unsent: a client that does not read cannot
  // make the server buffer without limit.
  size_t max_stream_buffer_bytes = size_t{8} << 20;
  // A request not answered in this time gets 504 (kube-apiserver's --request-timeout); its
  // handler's later answer is dropped. Streams (watches) are answered at once and end by their
  // own deadline.
  std::chrono::milliseconds request_timeout{60000};
  // Open connections at most (0: the open-file limit, raised to its hard limit, minus 256 for
  // the store and the rest), and from one client address. Past a limit a new connection is
  // closed at once.
  size_t max_connections = 0;
  size_t max_connections_per_client = 1024;
  // Request bodies larger than small_body_bytes (or of unknown length, counted as
  // max_body_bytes, so small bodies should be sent with a length) that the server holds at once,
  // from their head until their answer: past it a request gets 429 with Retry-After before its
  // body is read. Smaller bodies (lease renewals) never wait for it; the connection caps bound
  // them. Must be at least max_body_bytes.
  size_t max_large_body_bytes = size_t{512} << 20;
  size_t small_body_bytes = 64 * 1024;
};

class HttpServer {
 public:
  // Binds and starts serving on background threads.
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   std::shared_ptr<HttpHandler> handler);
  virtual ~HttpServer() = default;
  virtual uint16_t port() const = 0;
  // Bytes of large bodies held now (see max_large_body_bytes).
  virtual size_t large_body_bytes() const = 0;
  // Stops accepting, ends open streams and connections, joins the threads.
  virtual void Stop() = 0;
};

}  // namespace tenure::server
