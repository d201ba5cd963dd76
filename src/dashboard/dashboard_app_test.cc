// The dashboard served by a real tenure server: who may open it (authentication, RBAC, the
// cookie), its views, its live stream, and its term history across a restart of the board.
#include "dashboard/dashboard_app.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/time.h"
#include "client/http_connection.h"
#include "client/kube_client.h"
#include "server/bootstrap_policy.h"
#include "testing/in_process_server.h"

namespace tenure::dashboard {
namespace {

using nlohmann::json;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr char kLeases[] = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

class DashboardAppTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.tokens.users["viewer-token"] = {.name = "viewer"};
    options.tokens.users["stranger-token"] = {.name = "stranger"};
    auto started = testing::InProcessServer::Start(options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    server_ = std::move(*started);
    StartApp();
  }
  void TearDown() override {
    if (app_) app_->Stop();
  }
  void StartApp() {
    client::ClusterConfig config;
    ASSERT_TRUE(client::ParseServerUrl(server_->server().url(), config).ok());
    config.endpoint.tls.ca_file = server_->credentials().server_trust_file;
    config.token = server_->server().dashboard_token();
    auto kube = client::KubeClient::Create(config);
    ASSERT_TRUE(kube.ok()) << kube.status().ToString();
    BoardOptions board_options;
    board_options.archive_path = server_->data_dir() + "/dashboard-terms.jsonl";
    board_options.tick = std::chrono::milliseconds(20);
    board_options.refresh = std::chrono::milliseconds(100);
    auto board = Board::Start(*kube, board_options);
    ASSERT_TRUE(board.ok()) << board.status().ToString();
    DashboardAppOptions app_options;
    app_options.push_interval = std::chrono::milliseconds(20);
    app_ = std::make_shared<DashboardApp>(std::shared_ptr<Board>(std::move(*board)), app_options);
    server_->server().Mount(app_);
  }
  client::HttpReply Send(const std::string& method, const std::string& target,
                         const Headers& headers = {}, const std::string& body = "") {
    client::HttpConnection c(server_->endpoint());
    auto reply = c.Request(method, target, headers, body, std::chrono::seconds(10));
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return reply.ok() ? *reply : client::HttpReply{};
  }
  Headers Admin() const { return {{"authorization", "Bearer " + server_->credentials().token}}; }
  Headers Cookie(const std::string& token) const {
    return {{"cookie", "other=1; tenure-dashboard-token=" + token}};
  }
  void WriteLease(const std::string& name, const std::string& holder, int transitions,
                  const std::string& at) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", name}}},
                  {"spec",
                   {{"holderIdentity", holder},
                    {"leaseDurationSeconds", 15},
                    {"acquireTime", at},
                    {"renewTime", at},
                    {"leaseTransitions", transitions}}}};
    Headers h = Admin();
    h.emplace_back("content-type", "application/json");
    auto existing = Send("GET", std::string(kLeases) + "/" + name, Admin());
    if (existing.status == 200) {
      lease["metadata"]["resourceVersion"] =
          json::parse(existing.body)["metadata"]["resourceVersion"];
      ASSERT_EQ(Send("PUT", std::string(kLeases) + "/" + name, h, lease.dump()).status, 200);
    } else {
      ASSERT_EQ(Send("POST", kLeases, h, lease.dump()).status, 201);
    }
  }
  // The lease view once `done` accepts it (deadline 10 s).
  json WaitForLease(const std::string& name, const std::function<bool(const json&)>& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    json last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto r = Send("GET", "/dashboard/api/lease?namespace=default&name=" + name, Admin());
      if (r.status == 200) {
        last = json::parse(r.body);
        if (done(last)) return last;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "the lease view never got there: " << last.dump();
    return last;
  }

  std::unique_ptr<testing::InProcessServer> server_;
  std::shared_ptr<DashboardApp> app_;
};

TEST_F(DashboardAppTest, WithoutCredentialsOnlyTheLoginPageIsServed) {
  // The sign-in page (200: it holds nothing but the form).
  auto page = Send("GET", "/dashboard/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("Sign in"), std::string::npos);
  EXPECT_EQ(page.body.find("assets/app.js"), std::string::npos);
  EXPECT_NE(page.body.find(R"(data-refused="")"), std::string::npos);
  // tenure serve's tokens are the API server's: a link cannot sign anyone in.
  EXPECT_NE(page.body.find(R"(data-token-links="")"), std::string::npos);
  EXPECT_NE(page.headers["content-security-policy"].find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(Send("GET", "/dashboard").status, 302);
  EXPECT_EQ(Send("GET", "/dashboard/assets/login.js").status, 200);
  EXPECT_EQ(Send("GET", "/dashboard/assets/style.css").status, 200);
  for (const char* closed : {"/dashboard/assets/app.js", "/dashboard/api/overview",
                             "/dashboard/api/server", "/dashboard/api/stream"}) {
    auto r = Send("GET", closed);
    EXPECT_EQ(r.status, 401) << closed;
    EXPECT_EQ(json::parse(r.body)["reason"], "Unauthorized") << closed;
  }
  auto refused = Send("GET", "/dashboard/", Cookie("not-a-token"));
  EXPECT_EQ(refused.status, 200);
  EXPECT_NE(refused.body.find(R"(data-refused="refused")"), std::string::npos);
  // The cookie counts under the dashboard's path only.
  EXPECT_EQ(Send("GET", kLeases, Cookie(server_->credentials().token)).status, 403);
}

TEST_F(DashboardAppTest, AUserNeedsTheViewerRoleAndTheCookieCarriesTheToken) {
  auto stranger = Send("GET", "/dashboard/", Cookie("stranger-token"));
  EXPECT_EQ(stranger.status, 403) << stranger.body;
  Headers h = Admin();
  h.emplace_back("content-type", "application/json");
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "ClusterRoleBinding"},
                  {"metadata", {{"name", "viewers"}}},
                  {"roleRef",
                   {{"apiGroup", "rbac.authorization.k8s.io"},
                    {"kind", "ClusterRole"},
                    {"name", std::string(server::kDashboardViewerRole)}}},
                  {"subjects", {{{"kind", "User"}, {"name", "viewer"}}}}};
  ASSERT_EQ(
      Send("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", h, binding.dump())
          .status,
      201);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline && status != 200) {
    status = Send("GET", "/dashboard/", Cookie("viewer-token")).status;
  }
  EXPECT_EQ(status, 200);
  auto page = Send("GET", "/dashboard/", Cookie(server_->credentials().token));
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("assets/app.js"), std::string::npos);
  EXPECT_EQ(Send("GET", "/dashboard/assets/app.js", Cookie("viewer-token")).status, 200);
  EXPECT_EQ(Send("GET", "/dashboard/", Cookie("stranger-token")).status, 403);
}

TEST_F(DashboardAppTest, BadRequestsGetAStatusThatSaysWhy) {
  auto limit = Send("GET", "/dashboard/api/overview?limit=abc", Admin());
  EXPECT_EQ(limit.status, 400);
  EXPECT_EQ(json::parse(limit.body)["message"],
            "limit must be a whole number from 1 to 5000, not \"abc\"");
  EXPECT_EQ(Send("GET", "/dashboard/api/lease?namespace=default", Admin()).status, 400);
  EXPECT_EQ(Send("GET", "/dashboard/api/lease?namespace=default&name=nothing", Admin()).status,
            404);
  EXPECT_EQ(Send("GET", "/dashboard/api/stream?view=chart", Admin()).status, 400);
  // Only names Kubernetes could hold: nothing else reaches the board or its requests' paths.
  auto path =
      Send("GET", "/dashboard/api/stream?view=lease&namespace=kube-system%2Fservices%2Fx&name=y",
           Admin());
  EXPECT_EQ(path.status, 400);
  EXPECT_NE(json::parse(path.body)["message"].get<std::string>().find("namespace"),
            std::string::npos);
  EXPECT_EQ(Send("GET", "/dashboard/api/lease?namespace=default&name=a%3Fb", Admin()).status, 400);
  EXPECT_EQ(Send("GET", "/dashboard/nowhere", Admin()).status, 404);
  EXPECT_EQ(Send("GET", "/dashboard/assets/none.js", Admin()).status, 404);
  EXPECT_EQ(Send("POST", "/dashboard/api/overview", Admin(), "{}").status, 405);
}

// The server view carries what the server's /metrics text says of it (read as text: it is not
// JSON), its version and store.
TEST_F(DashboardAppTest, TheServerViewSummarizesTheServersMetrics) {
  json view;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = Send("GET", "/dashboard/api/server", Admin());
    ASSERT_EQ(r.status, 200) << r.body;
    view = json::parse(r.body);
    if (view.contains("requests") && view.contains("store")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(view.contains("metricsError")) << view.dump();
  EXPECT_TRUE(view.contains("requests")) << view.dump();
  EXPECT_EQ(view.value("store", ""), "sqlite") << view.dump();
  EXPECT_TRUE(view.contains("revision")) << view.dump();
  EXPECT_TRUE(view.contains("version")) << view.dump();
}

TEST_F(DashboardAppTest, TheStreamSendsTheOverviewThenEachChange) {
  client::HttpConnection c(server_->endpoint());
  auto head = c.StartStream("/dashboard/api/stream?view=overview&namespace=default",
                            Cookie(server_->credentials().token), std::chrono::seconds(10));
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  ASSERT_EQ(head->status, 200);
  // Reads "data:" lines of `event` until `done` accepts one.
  auto read_until = [&](const std::string& event, const std::function<bool(const json&)>& done) {
    std::string current;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      auto line = c.ReadLine(std::chrono::seconds(10));
      if (!line.ok()) break;
      std::string text = *line;
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      if (text.rfind("event: ", 0) == 0) current = text.substr(7);
      if (text.rfind("data: ", 0) == 0 && current == event) {
        json data = json::parse(text.substr(6));
        if (done(data)) return data;
      }
    }
    ADD_FAILURE() << "no " << event << " message as expected";
    return json();
  };
  json first = read_until("overview", [](const json& d) { return d["full"] == true; });
  EXPECT_EQ(first["total"], 0);
  WriteLease("live", "alpha", 0, api::FormatMicroTime(std::chrono::system_clock::now()));
  json added = read_until("overview", [](const json& d) { return !d["rows"].empty(); });
  EXPECT_EQ(added["full"], false);
  EXPECT_EQ(added["rows"][0]["name"], "live");
  EXPECT_EQ(added["rows"][0]["holder"], "alpha");
  WriteLease("live", "beta", 1, api::FormatMicroTime(std::chrono::system_clock::now()));
  json changed = read_until("overview", [](const json& d) {
    return !d["rows"].empty() && d["rows"][0]["holder"] == "beta";
  });
  EXPECT_EQ(changed["rows"][0]["transitions"], 1);
  ASSERT_EQ(Send("DELETE", std::string(kLeases) + "/live", Admin()).status, 200);
  json removed = read_until("overview", [](const json& d) { return !d["removed"].empty(); });
  EXPECT_EQ(removed["removed"][0]["name"], "live");
  EXPECT_EQ(removed["total"], 0);
  read_until("server", [](const json& d) { return d.value("store", "") == "sqlite"; });
}

TEST_F(DashboardAppTest, TermsAndTheirHandoversSurviveARestartOfTheDashboard) {
  // Times from now: Leases that expired long ago would have their terms ended by time first.
  const auto now = std::chrono::system_clock::now();
  auto at = [&](int ms) { return api::FormatMicroTime(now + std::chrono::milliseconds(ms)); };
  WriteLease("kept", "alpha", 0, at(0));
  WriteLease("kept", "", 0, at(5000));
  WriteLease("kept", "beta", 1, at(5250));
  auto check = [](const json& view) {
    const json& terms = view["terms"];
    return terms.size() == 2 && terms[0]["holder"] == "alpha" && terms[0]["end"] == "released" &&
           terms[1]["holder"] == "beta" && terms[1].value("handoverMs", -1) == 250;
  };
  WaitForLease("kept", check);
  app_->Stop();
  app_.reset();
  StartApp();
  json view = WaitForLease("kept", [&](const json& v) { return check(v) && v["exists"] == true; });
  EXPECT_EQ(view["lease"]["holder"], "beta");
}

}  // namespace
}  // namespace tenure::dashboard
