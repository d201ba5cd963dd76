// DashboardApp: routes, the login page, and the Server-Sent Events streams.
#include "dashboard/dashboard_app.h"

#include <charconv>
#include <condition_variable>
#include <nlohmann/json.hpp>

#include "api/validation.h"
#include "dashboard/web_assets.h"
#include "server/response_format.h"
#include "tenure/log.h"

namespace tenure::dashboard {

using nlohmann::json;
using server::HttpRequest;
using server::HttpResponse;
using server::Responder;

namespace {

constexpr size_t kLargestLimit = 5000;
constexpr auto kServerEvery = std::chrono::seconds(2);

void AddPageHeaders(HttpResponse& r) {
  // Only the app's own files run, load and are framed: no inline script, nothing from elsewhere.
  r.headers.emplace_back("content-security-policy",
                         "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                         "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
                         "base-uri 'none'; form-action 'self'");
  r.headers.emplace_back("x-content-type-options", "nosniff");
  r.headers.emplace_back("referrer-policy", "no-referrer");
  r.headers.emplace_back("cache-control", "no-store");
}

HttpResponse Page(int status, std::string_view content_type, std::string_view body) {
  HttpResponse r;
  r.status = status;
  r.content_type = std::string(content_type);
  r.body = std::string(body);
  AddPageHeaders(r);
  return r;
}

// Text from the cluster (an error body, say) need not be UTF-8: replaced, never thrown.
std::string Dump(const json& document) {
  return document.dump(-1, ' ', false, json::error_handler_t::replace);
}

HttpResponse Json(const json& document) {
  HttpResponse r;
  r.body = Dump(document);
  AddPageHeaders(r);
  return r;
}

HttpResponse Error(const Status& status) {
  HttpResponse r = server::ErrorResponse(status);
  AddPageHeaders(r);
  return r;
}

std::string SseMessage(std::string_view event, const json& data) {
  std::string out = "event: ";
  out += event;
  out += "\ndata: ";
  out += Dump(data);
  out += "\n\n";
  return out;
}

Result<OverviewFilter> FilterOf(const HttpRequest& request) {
  OverviewFilter filter;
  filter.namespace_ = request.param("namespace");
  filter.search = request.param("search");
  if (std::string limit = request.param("limit"); !limit.empty()) {
    size_t value = 0;
    auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), value);
    if (ec != std::errc() || end != limit.data() + limit.size() || value == 0 ||
        value > kLargestLimit) {
      return Status::BadRequest("limit must be a whole number from 1 to " +
                                std::to_string(kLargestLimit) + ", not \"" + limit + "\"");
    }
    filter.limit = value;
  }
  return filter;
}

// A Lease named by a page: a namespace and a name Kubernetes could hold (nothing else reaches
// the board, nor a path of its requests).
Result<LeaseKey> LeaseOf(const HttpRequest& request) {
  LeaseKey key{request.param("namespace"), request.param("name")};
  if (key.first.empty() || key.second.empty()) {
    return Status::BadRequest("namespace and name are both required");
  }
  if (auto errors = api::IsDNS1123Label(key.first); !errors.empty()) {
    return Status::BadRequest("namespace \"" + key.first + "\": " + errors.front());
  }
  if (auto errors = api::IsDNS1123Subdomain(key.second); !errors.empty()) {
    return Status::BadRequest("name \"" + key.second + "\": " + errors.front());
  }
  return key;
}

// The part of the path after the app's prefix: "" for the prefix itself.
std::string_view Rest(const std::string& path, const std::string& prefix) {
  return std::string_view(path).substr(prefix.size());
}

bool IsPage(std::string_view rest) { return rest == "/" || rest == "/index.html"; }

}  // namespace

struct DashboardApp::Stream {
  std::shared_ptr<server::ResponseStream> out;
  bool lease_view = false;
  OverviewFilter filter;
  LeaseKey lease;
  uint64_t sent_version = 0;
  std::set<LeaseKey> shown;
  size_t total = 0;
  bool first = true;
  json server = nullptr;
  std::chrono::steady_clock::time_point server_sent{};
};

DashboardApp::DashboardApp(std::shared_ptr<Board> board, DashboardAppOptions options)
    : board_(std::move(board)), options_(std::move(options)) {
  pusher_ = std::jthread([this](std::stop_token stop) { Push(stop); });
}

DashboardApp::~DashboardApp() { Stop(); }

void DashboardApp::Stop() {
  if (pusher_.joinable()) {
    pusher_.request_stop();
    pusher_.join();
  }
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    streams.swap(streams_);
  }
  for (auto& s : streams) {
    if (s->lease_view) board_->Forget(s->lease);
    s->out->Close();
  }
  board_->Stop();
}

size_t DashboardApp::streams() const {
  std::lock_guard lock(mu_);
  return streams_.size();
}

void DashboardApp::Handle(HttpRequest request, std::shared_ptr<Responder> responder) {
  if (request.method != "GET" && request.method != "HEAD") {
    return responder->Reply(Error(Status(Reason::kMethodNotAllowed,
                                         "the dashboard answers GET only, not " + request.method)));
  }
  const std::string_view rest = Rest(request.path, options_.prefix);
  if (rest.empty()) {
    HttpResponse r = Page(302, "text/plain; charset=utf-8", "");
    r.headers.emplace_back("location", options_.prefix + "/");
    return responder->Reply(std::move(r));
  }
  if (IsPage(rest)) {
    const WebAsset* page = FindWebAsset("index.html");
    return responder->Reply(Page(200, page->content_type, page->body));
  }
  if (rest.substr(0, 8) == "/assets/") {
    const WebAsset* asset = FindWebAsset(rest.substr(8));
    if (asset == nullptr) return responder->Reply(Error(Status::NotFound("no such file")));
    return responder->Reply(Page(200, asset->content_type, asset->body));
  }
  if (rest == "/api/overview") {
    auto filter = FilterOf(request);
    if (!filter.ok()) return responder->Reply(Error(filter.status()));
    return responder->Reply(Json(board_->Overview(*filter, 0).document));
  }
  if (rest == "/api/lease") {
    auto key = LeaseOf(request);
    if (!key.ok()) return responder->Reply(Error(key.status()));
    auto lease = board_->Lease(*key);
    if (!lease) {
      return responder->Reply(
          Error(Status::NotFound("no lease " + key->first + "/" + key->second + " is known")));
    }
    return responder->Reply(Json(*lease));
  }
  if (rest == "/api/server") return responder->Reply(Json(board_->Server()));
  if (rest == "/api/stream") return OpenStream(request, *responder);
  responder->Reply(Error(Status::NotFound("the dashboard has no page " + request.path)));
}

void DashboardApp::HandleUnauthenticated(HttpRequest request, std::shared_ptr<Responder> responder,
                                         bool refused) {
  const std::string_view rest = Rest(request.path, options_.prefix);
  if (request.method == "GET" || request.method == "HEAD") {
    for (std::string_view open : {"/assets/login.js", "/assets/style.css", "/assets/icon.svg"}) {
      if (rest == open) {
        const WebAsset* asset = FindWebAsset(rest.substr(8));
        return responder->Reply(Page(200, asset->content_type, asset->body));
      }
    }
    if (rest.empty()) {
      HttpResponse r = Page(302, "text/plain; charset=utf-8", "");
      r.headers.emplace_back("location", options_.prefix + "/");
      return responder->Reply(std::move(r));
    }
    if (IsPage(rest)) {
      std::string body(FindWebAsset("login.html")->body);
      // The login page says why it is shown, and what to paste.
      auto fill = [&body](std::string_view mark, const std::string& text) {
        if (size_t at = body.find(mark); at != std::string::npos)
          body.replace(at, mark.size(), text);
      };
      fill("{{REFUSED}}", refused ? "refused" : "");
      fill("{{TOKEN_LINKS}}", options_.token_in_address ? "on" : "");
      fill("{{HINT}}", options_.login_hint);
      // 200: a browser logs any other status of a page as an error; the page holds no data.
      return responder->Reply(Page(200, "text/html; charset=utf-8", body));
    }
  }
  responder->Reply(Error(Status(Reason::kUnauthorized, "Unauthorized")));
}

void DashboardApp::OpenStream(const HttpRequest& request, Responder& responder) {
  auto stream = std::make_shared<Stream>();
  stream->lease_view = request.param("view") == "lease";
  if (stream->lease_view) {
    auto key = LeaseOf(request);
    if (!key.ok()) return responder.Reply(Error(key.status()));
    stream->lease = *key;
  } else if (std::string view = request.param("view"); !view.empty() && view != "overview") {
    return responder.Reply(
        Error(Status::BadRequest("view must be overview or lease, not \"" + view + "\"")));
  } else {
    auto filter = FilterOf(request);
    if (!filter.ok()) return responder.Reply(Error(filter.status()));
    stream->filter = *filter;
  }
  // The place is taken (under the lock that counts them) before the stream starts.
  {
    std::lock_guard lock(mu_);
    if (stopped_) {
      return responder.Reply(Error(Status::Unavailable("the dashboard is stopping")));
    }
    if (streams_.size() + opening_ >= options_.max_streams) {
      HttpResponse r = Error(
          Status(Reason::kTooManyRequests, "the dashboard has as many streams open as it serves"));
      r.headers.emplace_back("retry-after", "5");
      return responder.Reply(std::move(r));
    }
    ++opening_;
  }
  // A comment line when nothing else was sent for a while keeps proxies from closing the
  // connection.
  auto keepalive = std::make_shared<std::weak_ptr<server::ResponseStream>>();
  auto out = responder.Stream(200, "text/event-stream",
                              std::chrono::steady_clock::now() + options_.stream_lifetime,
                              options_.keepalive, [keepalive] {
                                if (auto s = keepalive->lock()) s->Write(": keepalive\n\n");
                              });
  *keepalive = out;
  stream->out = out;
  // The browser's EventSource reconnects after this many milliseconds.
  out->Write("retry: 1000\n\n", false);
  std::lock_guard lock(mu_);
  --opening_;
  if (stopped_) {
    out->Close();
    return;
  }
  if (stream->lease_view) board_->Watch(stream->lease);
  streams_.push_back(std::move(stream));
}

bool DashboardApp::Update(Stream& s, bool first) {
  if (s.out->closed()) return false;
  std::string messages;
  if (s.lease_view) {
    uint64_t changed = 0;
    auto lease = board_->Lease(s.lease, &changed);
    if (first || changed > s.sent_version) {
      json data = lease ? *lease : json{{"missing", true}};
      messages += SseMessage("lease", data);
      s.sent_version = changed;
    }
  } else {
    auto delta = board_->Overview(s.filter, first ? 0 : s.sent_version, first ? nullptr : &s.shown);
    json& doc = delta.document;
    json removed = json::array();
    for (const LeaseKey& key : s.shown) {
      if (!delta.shown.count(key))
        removed.push_back({{"namespace", key.first}, {"name", key.second}});
    }
    const size_t total = doc["total"].get<size_t>();
    if (first || !doc["rows"].empty() || !removed.empty() || total != s.total) {
      doc["full"] = first;
      doc["removed"] = std::move(removed);
      messages += SseMessage("overview", doc);
    }
    s.sent_version = doc["version"].get<uint64_t>();
    s.shown = std::move(delta.shown);
    s.total = total;
  }
  const auto now = std::chrono::steady_clock::now();
  if (first || now - s.server_sent >= kServerEvery) {
    json server = board_->Server();
    if (server != s.server) {
      messages += SseMessage("server", server);
      s.server = std::move(server);
    }
    s.server_sent = now;
  }
  if (messages.empty()) return true;
  // A page that does not read its stream is dropped (the buffer bound); it reconnects.
  return s.out->Write(std::move(messages));
}

void DashboardApp::Push(std::stop_token stop) {
  std::mutex wait_mu;
  std::condition_variable_any wait_cv;
  while (!stop.stop_requested()) {
    std::vector<std::shared_ptr<Stream>> streams;
    {
      std::lock_guard lock(mu_);
      streams = streams_;
    }
    std::vector<std::shared_ptr<Stream>> ended;
    for (auto& s : streams) {
      bool open = true;
      try {
        open = Update(*s, std::exchange(s->first, false));
      } catch (const std::exception& e) {
        // A view that cannot be sent ends its stream (the page reconnects), not the server.
        Log(LogLevel::kError, "dashboard", "a stream's update failed", {{"error", e.what()}});
        open = false;
      }
      if (!open) ended.push_back(s);
    }
    if (!ended.empty()) {
      std::lock_guard lock(mu_);
      for (auto& s : ended) {
        std::erase(streams_, s);
        if (s->lease_view) board_->Forget(s->lease);
        s->out->Close();
      }
    }
    std::unique_lock lock(wait_mu);
    wait_cv.wait_for(lock, stop, options_.push_interval, [] { return false; });
  }
}

}  // namespace tenure::dashboard
