// DashboardApp: the dashboard as a WebApp (server/web_app.h) over a Board: the page and its
// files, JSON views, and Server-Sent Events streams that push what changed.
//
// Under prefix():
//   /  (and /index.html)      the page (hash routes: #/ the overview, #/lease/NS/NAME one Lease)
//   /assets/FILE              the page's script, style and icon
//   /api/overview?namespace=&search=&limit=    the overview's rows (Board::Overview)
//   /api/lease?namespace=&name=                 one Lease (404 when unknown)
//   /api/server                                 the server summary
//   /api/stream?view=overview&namespace=&search=&limit=  or  ?view=lease&namespace=&name=
//       text/event-stream: a full message first, then within push_interval of each change
//       the rows that changed (event "overview") or the Lease again (event "lease"), and the
//       server summary when it changed (event "server"). A stream ends after stream_lifetime;
//       the browser's EventSource reconnects.
// Without credentials (HandleUnauthenticated): the login page for page loads, its script and
// style, 401 for everything else. Its pages, files and views carry a Content-Security-Policy that
// allows only the app's own files. Only GET and HEAD.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dashboard/board.h"
#include "server/web_app.h"

namespace tenure::dashboard {

struct DashboardAppOptions {
  std::string prefix = "/dashboard";
  std::string token_cookie = "tenure-dashboard-token";
  // What the login page asks for: a token of the API server, or the one `tenure dashboard`
  // printed.
  std::string login_hint = "a bearer token this server accepts";
  // Whether the sign-in page takes a token from its address (?token=, as `tenure dashboard`
  // prints it). Off where tokens are the API server's: a link must not sign anyone in as
  // someone else.
  bool token_in_address = false;
  std::chrono::milliseconds push_interval{250};
  std::chrono::seconds stream_lifetime{600};
  std::chrono::seconds keepalive{15};
  size_t max_streams = 256;
};

class DashboardApp final : public server::WebApp {
 public:
  DashboardApp(std::shared_ptr<Board> board, DashboardAppOptions options = {});
  ~DashboardApp() override;
  // Ends the streams, the push thread and the board's watches (the views stay readable).
  void Stop();

  const std::string& prefix() const override { return options_.prefix; }
  const std::string& token_cookie() const override { return options_.token_cookie; }
  void Handle(server::HttpRequest request, std::shared_ptr<server::Responder> responder) override;
  void HandleUnauthenticated(server::HttpRequest request,
                             std::shared_ptr<server::Responder> responder, bool refused) override;

  size_t streams() const;

 private:
  struct Stream;
  void OpenStream(const server::HttpRequest& request, server::Responder& responder);
  void Push(std::stop_token stop);
  // Sends what changed for one stream; false when it has ended.
  bool Update(Stream& stream, bool first);

  std::shared_ptr<Board> board_;
  DashboardAppOptions options_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Stream>> streams_;
  size_t opening_ = 0;  // streams counted against max_streams that are still starting
  bool stopped_ = false;
  std::jthread pusher_;
};

}  // namespace tenure::dashboard
