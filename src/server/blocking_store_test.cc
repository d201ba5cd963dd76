// The server over a store whose reads block (as etcd's do, for a round trip or for as long as a
// member hangs): with one HTTP thread, requests that must read hold none of it, so a renewal on
// a version the store knows is still answered.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "client/http_connection.h"
#include "server/api_server.h"
#include "server/auth_cache.h"
#include "server/credentials.h"
#include "server/discovery.h"
#include "server/http_server.h"
#include "server/resource_api.h"
#include "server/service_account_token.h"
#include "store/forwarding_store_test_util.h"
#include "store/sqlite_store.h"
#include "store/store_test_util.h"
#include "tenure/clock.h"

namespace tenure::server {
namespace {

using nlohmann::json;

// A SqliteStore whose reads wait while the gate is closed, and which knows every stored version
// without a read (as an etcd replica knows what it wrote or watched).
class GatedStore : public store::test_util::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  Result<store::KeyValue> Get(std::string_view key) override {
    Pass();
    return ForwardingStore::Get(key);
  }
  std::optional<store::KeyValue> KnownValue(std::string_view key, int64_t revision) override {
    auto kv = inner().Get(key);
    if (!kv.ok() || kv->mod_revision != revision) return std::nullopt;
    return *kv;
  }
  using store::Store::List;
  Result<store::ListResult> List(std::string_view prefix,
                                 const store::ListOptions& options) override {
    Pass();
    return ForwardingStore::List(prefix, options);
  }
  int64_t CurrentRevision() override {
    Pass();
    return ForwardingStore::CurrentRevision();
  }
  bool ReadsBlock() const override { return true; }

  void CloseGate() {
    std::lock_guard lock(mu_);
    open_ = false;
  }
  void OpenGate() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  // Waits until `count` reads wait at the gate; false after `timeout`.
  bool WaitForBlockedReads(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return blocked_ >= count; });
  }

 private:
  // A read waits for the gate (never longer than a minute: only a broken test waits that long).
  void Pass() {
    std::unique_lock lock(mu_);
    if (open_) return;
    ++blocked_;
    cv_.notify_all();
    cv_.wait_for(lock, std::chrono::minutes(1), [&] { return open_; });
    --blocked_;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  size_t blocked_ = 0;
};

constexpr const char* kAdminToken = "admin-token";
constexpr const char* kNobodyToken = "nobody-token";
constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

std::string Lease(const std::string& name, const std::string& holder, const std::string& rv = "") {
  json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", {{"holderIdentity", holder}, {"leaseDurationSeconds", 15}}}};
  if (!rv.empty()) lease["metadata"]["resourceVersion"] = rv;
  return lease.dump();
}

class BlockingStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    auto opened = store::test_util::OpenWithDefaultNamespace<GatedStore>(dir_.File("db"));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    auto policy = AuthCache::Start(store_);
    ASSERT_TRUE(policy.ok()) << policy.status().ToString();
    ApiServerOptions api;
    api.token = kAdminToken;
    api.tokens.users[kNobodyToken] = {.name = "nobody"};
    api.policy = *policy;
    api.served = AllServedVersions();
    auto credentials = EnsureCredentials(dir_.File("credentials"));
    ASSERT_TRUE(credentials.ok()) << credentials.status().ToString();
    auto tokens = ServiceAccountTokens::Open(credentials->service_account_key_file,
                                             std::string(ServiceAccountTokens::kDefaultIssuer));
    ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
    api.service_account_tokens = *tokens;
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    // Of an account that does not exist (deleted, say): not in the policy cache.
    ghost_token_ =
        (*tokens)->Sign({.namespace_ = "default",
                         .name = "ghost",
                         .uid = "ghost-uid",
                         .audiences = {std::string(ServiceAccountTokens::kDefaultIssuer)},
                         .issued_at = now,
                         .expires = now + 3600,
                         .id = "ghost"});
    // What Server sets up for a store whose reads block (with fewer threads).
    api.admission.blocking_threads = 8;
    api.admission.leader_election_threads = 8;
    auto handler =
        std::make_shared<ApiServer>(api, std::make_shared<ResourceApi>(store_, Clock::Real()));
    HttpServerOptions http;
    http.tls = false;
    http.threads = 1;
    auto server = HttpServer::Start(http, handler);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    http_ = std::move(*server);
  }
  void TearDown() override {
    if (store_) store_->OpenGate();
    for (std::thread& t : blocked_) t.join();
    if (http_) http_->Stop();
    if (store_) store_->Close();
  }

  client::Endpoint endpoint() const { return {.host = "127.0.0.1", .port = http_->port()}; }
  static std::vector<std::pair<std::string, std::string>> Headers(const char* token) {
    return {{"Authorization", std::string("Bearer ") + token},
            {"Content-Type", "application/json"},
            {"Accept", "application/json"}};
  }
  client::HttpReply Send(const std::string& method, const std::string& target,
                         const std::string& body, const char* token = kAdminToken) {
    client::HttpConnection c(endpoint());
    auto headers = Headers(token);
    if (method == "PATCH") headers[1].second = "application/merge-patch+json";
    auto reply = c.Request(method, target, headers, body, std::chrono::seconds(20));
    return reply.ok() ? std::move(*reply) : client::HttpReply{};
  }
  // Sends a request that waits at the closed gate, on a thread of its own, and waits until it
  // does; `reads` counts the reads then waiting at the gate.
  void SendBlocked(const std::string& method, const std::string& target, const std::string& body,
                   size_t reads, const char* token = kAdminToken) {
    blocked_.emplace_back([this, method, target, body, token] {
      client::HttpConnection c(endpoint());
      auto headers = Headers(token);
      if (method == "PATCH") headers[1].second = "application/merge-patch+json";
      if (target.find("watch=true") != std::string::npos) {
        (void)c.StartStream(target, headers, std::chrono::seconds(70));
      } else {
        (void)c.Request(method, target, headers, body, std::chrono::seconds(70));
      }
    });
    EXPECT_TRUE(store_->WaitForBlockedReads(reads, std::chrono::seconds(10)))
        << method << " " << target << " did not reach the store";
  }

  store::test_util::TempDir dir_;
  std::shared_ptr<GatedStore> store_;
  std::unique_ptr<HttpServer> http_;
  std::vector<std::thread> blocked_;
  std::string ghost_token_;  // a ServiceAccount token of an account that does not exist
};

TEST_F(BlockingStoreTest, RequestsThatReadHoldNoHttpThreadAndARenewalIsAnswered) {
  client::HttpReply created = Send("POST", kLeases, Lease("renewed", "a"));
  ASSERT_EQ(created.status, 201) << created.body;
  std::string rv = json::parse(created.body)["metadata"]["resourceVersion"];
  ASSERT_EQ(Send("POST", kLeases, Lease("other", "a")).status, 201);

  store_->CloseGate();
  std::string other = std::string(kLeases) + "/other";
  size_t reads = 0;
  // Each of these reads the store, which now hangs; with one HTTP thread, any one of them run
  // there would leave the renewal below unanswered.
  SendBlocked("POST", kLeases, Lease("new", "a"), ++reads);      // namespace check
  SendBlocked("PUT", other, Lease("other", "b", "1"), ++reads);  // unknown version
  SendBlocked("PATCH", other, R"({"spec":{"holderIdentity":"c"}})", ++reads);
  SendBlocked("DELETE", other, "", ++reads);
  SendBlocked("GET", other, "", ++reads);
  SendBlocked("GET", std::string(kLeases) + "?watch=true", "", ++reads);  // initial state
  // Denied on the policy as cached: decided again once the cache is current, which asks the
  // store for its revision.
  SendBlocked("PUT", std::string(kLeases) + "/renewed", Lease("renewed", "x", rv), ++reads,
              kNobodyToken);
  // A ServiceAccount token whose account the policy cache does not hold: decided once the cache
  // is current, which asks the store for its revision.
  SendBlocked("GET", other, "", ++reads, ghost_token_.c_str());

  client::HttpReply renewed =
      Send("PUT", std::string(kLeases) + "/renewed", Lease("renewed", "b", rv));
  EXPECT_EQ(renewed.status, 200) << "a renewal waited behind requests blocked on the store";

  store_->OpenGate();
  // The blocked requests go on (the delete may have removed `other`); reads are served again.
  client::HttpReply read = Send("GET", std::string(kLeases) + "/renewed", "");
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(json::parse(read.body)["spec"]["holderIdentity"], "b");
}

// A client's `?timeout=` is the server's too: a request still waiting for the store then gets
// kube-apiserver's 504, and the connection, answered, stays open for the next request.
TEST_F(BlockingStoreTest, ARequestStillWaitingAtTheClientsTimeoutGets504OnAConnectionKept) {
  ASSERT_EQ(Send("POST", kLeases, Lease("slow", "a")).status, 201);
  client::HttpConnection c(endpoint());
  auto headers = Headers(kAdminToken);
  store_->CloseGate();
  const auto sent = std::chrono::steady_clock::now();
  auto timed_out = c.Request("GET", std::string(kLeases) + "/slow?timeout=300ms", headers, "",
                             std::chrono::seconds(20));
  const auto took = std::chrono::steady_clock::now() - sent;
  store_->OpenGate();
  ASSERT_TRUE(timed_out.ok()) << timed_out.status().ToString();
  EXPECT_EQ(timed_out->status, 504) << timed_out->body;
  json status = json::parse(timed_out->body);
  EXPECT_EQ(status["reason"], "Timeout");
  EXPECT_EQ(status["message"], "Timeout: request did not complete within the allotted timeout");
  EXPECT_LT(took, std::chrono::seconds(5)) << "answered at the server's own 60 s, not the client's";
  EXPECT_NE(timed_out->headers["connection"], "close");
  auto next =
      c.Request("GET", std::string(kLeases) + "/slow", headers, "", std::chrono::seconds(20));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->status, 200) << next->body;
}

}  // namespace
}  // namespace tenure::server
