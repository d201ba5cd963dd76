// RunEndpoints: the plain-HTTP /healthz, /readyz, /metrics and /info of `tenure run --listen`.
#include "cli/run_endpoints.h"

#include "cli/listen_address.h"
#include "server/http_server.h"

namespace tenure::cli {

namespace {

using server::HttpRequest;
using server::HttpResponse;

using server::TextResponse;

class Handler : public server::HttpHandler {
 public:
  explicit Handler(EndpointSources sources) : sources_(std::move(sources)) {}

  void Handle(HttpRequest request, std::shared_ptr<server::Responder> responder) override {
    responder->Reply(Route(request));
  }
  HttpResponse Reject(const Status& status) override {
    return TextResponse(400, status.message() + "\n");
  }

 private:
  HttpResponse Route(const HttpRequest& request) {
    const std::string& path = request.path;
    bool known = path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/info";
    if (!known) return TextResponse(404, "404 page not found\n");
    if (request.method != "GET" && request.method != "HEAD") {
      HttpResponse r = TextResponse(405, "method not allowed\n");
      r.headers.emplace_back("Allow", "GET, HEAD");
      return r;
    }
    if (path == "/healthz") {
      Status s = sources_.health();
      if (s.ok()) return TextResponse(200, "ok");
      return TextResponse(503,
                          "[-]leaderElection failed: " + s.message() + "\nhealthz check failed\n");
    }
    if (path == "/readyz") {
      Status s = sources_.ready();
      if (s.ok()) return TextResponse(200, "ok");
      return TextResponse(503, "[-]" + s.message() + "\nreadyz check failed\n");
    }
    if (path == "/metrics") {
      HttpResponse r = TextResponse(200, sources_.metrics());
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      return r;
    }
    HttpResponse r;
    r.body = sources_.info();
    return r;
  }

  EndpointSources sources_;
};

class Endpoints : public RunEndpoints {
 public:
  Endpoints(std::unique_ptr<server::HttpServer> server, std::string host)
      : server_(std::move(server)), host_(std::move(host)) {}
  ~Endpoints() override { Stop(); }
  uint16_t port() const override { return server_->port(); }
  std::string url() const override {
    std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
    return "http://" + host + ":" + std::to_string(port());
  }
  void Stop() override { server_->Stop(); }

 private:
  std::unique_ptr<server::HttpServer> server_;
  std::string host_;
};

}  // namespace

Result<std::unique_ptr<RunEndpoints>> RunEndpoints::Start(const std::string& listen,
                                                          EndpointSources sources) {
  server::HttpServerOptions options;
  Status s = ParseListenAddress(listen, options.address, options.port);
  if (!s.ok()) return s;
  options.tls = false;
  options.threads = 1;
  options.max_body_bytes = 64 * 1024;
  auto server = server::HttpServer::Start(options, std::make_shared<Handler>(std::move(sources)));
  if (!server.ok()) return server.status();
  return std::unique_ptr<RunEndpoints>(new Endpoints(std::move(*server), options.address));
}

}  // namespace tenure::cli
