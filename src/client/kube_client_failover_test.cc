// KubeClient with several endpoints against loopback stand-ins: a dead replica (nothing
// listens), a healthy one, one that reads a request and hangs up without a reply, and one that
// reads requests and never answers (a paused replica: its connection stays open).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "client/kube_client.h"
#include "client/test_loopback_listener.h"
#include "client/test_request_framer.h"
#include "tenure/testing/waits.h"

namespace tenure::client {
namespace {

// What a stand-in does with each request it read.
enum class Reply {
  kAnswer,
  kHangUp,
  kNever,
  kUnavailable,
  kTimedOut,
  kWatchUnavailable,  // lists answered, a watch's start answered 503
  kWatchStreams,      // lists answered, a watch's start answered with a stream kept open
  kUnauthorized,      // 401: the credentials are refused
};

// Accepts connections on 127.0.0.1; for each request answers 200 {"ok":true} (kAnswer), closes
// the connection (kHangUp), keeps it open and says nothing (kNever), or answers as a replica that
// cannot reach its store (kUnavailable: 503) or whose request timed out there (kTimedOut: 504).
class StandIn {
 public:
  explicit StandIn(bool hang_up) : StandIn(hang_up ? Reply::kHangUp : Reply::kAnswer) {}
  explicit StandIn(Reply reply) : reply_(reply) {
    EXPECT_TRUE(listener_.ok());
    thread_ = std::thread([this] { Serve(); });
  }
  ~StandIn() {
    listener_.Shutdown();
    thread_.join();
    {
      std::lock_guard lock(mu_);
      for (int c : open_) shutdown(c, SHUT_RDWR);
    }
    for (auto& t : handlers_) t.join();
  }
  uint16_t port() const { return listener_.port(); }
  int requests() const { return requests_.load(); }
  int connections() const { return connections_.load(); }
  std::vector<std::string> request_lines() const {
    std::lock_guard lock(mu_);
    return targets_;
  }

 private:
  void Serve() {
    for (;;) {
      int c = accept(listener_.fd(), nullptr, nullptr);
      if (c < 0) return;
      ++connections_;
      std::lock_guard lock(mu_);
      open_.push_back(c);
      handlers_.emplace_back([this, c] { Handle(c); });
    }
  }

  // One connection: keep-alive requests until the client or the stand-in hangs up.
  void Handle(int c) {
    std::string in;
    while (std::optional<FramedRequest> request = ReadRequest(c, in)) {
      {
        std::lock_guard lock(mu_);
        targets_.push_back(std::move(request->line));  // "GET /api HTTP/1.1"
      }
      ++requests_;
      if (reply_ == Reply::kHangUp) break;
      if (reply_ == Reply::kNever) continue;
      const bool watch = request_lines().back().find("watch=true") != std::string::npos;
      if (reply_ == Reply::kWatchStreams && watch) {
        std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        if (write(c, head.data(), head.size()) < 0) break;
        continue;  // the stream stays open until the test ends
      }
      std::string status = "200 OK", body = R"({"ok":true})";
      if (reply_ == Reply::kWatchUnavailable || reply_ == Reply::kWatchStreams) {
        body = R"({"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]})";
      }
      if (reply_ == Reply::kUnavailable || reply_ == Reply::kTimedOut ||
          (reply_ == Reply::kWatchUnavailable && watch)) {
        bool unavailable = reply_ != Reply::kTimedOut;
        status = unavailable ? "503 Service Unavailable" : "504 Gateway Timeout";
        body = nlohmann::json{{"kind", "Status"},
                              {"apiVersion", "v1"},
                              {"status", "Failure"},
                              {"message", unavailable ? "etcd range: no etcd endpoint reachable"
                                                      : "request did not complete within the "
                                                        "allotted timeout"},
                              {"reason", unavailable ? "ServiceUnavailable" : "Timeout"},
                              {"code", unavailable ? 503 : 504}}
                   .dump();
      }
      if (reply_ == Reply::kUnauthorized) {
        status = "401 Unauthorized";
        body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized",)"
               R"("reason":"Unauthorized","code":401})";
      }
      std::string reply =
          "HTTP/1.1 " + status +
          "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
          "\r\n\r\n" + body;
      if (write(c, reply.data(), reply.size()) < 0) break;
    }
    std::lock_guard lock(mu_);
    std::erase(open_, c);
    close(c);
  }

  Reply reply_;
  LoopbackListener listener_;
  std::atomic<int> requests_{0};
  std::atomic<int> connections_{0};
  mutable std::mutex mu_;
  std::vector<std::string> targets_;  // request lines, in arrival order
  std::vector<int> open_;             // connections being served
  std::vector<std::thread> handlers_;
  std::thread thread_;
};

// A loopback port nobody listens on (connections are refused at once). The socket stays bound,
// not listening, until the test process ends, so no other process can take the port meanwhile.
uint16_t DeadPort() {
  uint16_t port = 0;
  BoundLoopbackSocket(/*listening=*/false, &port);
  return port;
}

std::shared_ptr<KubeClient> ClientFor(const std::vector<uint16_t>& ports) {
  ClusterConfig config;
  std::string urls;
  for (uint16_t p : ports)
    urls += (urls.empty() ? "" : ",") + ("http://127.0.0.1:" + std::to_string(p));
  EXPECT_TRUE(UseServers(config, {urls}).ok());
  return *KubeClient::Create(config);
}

constexpr auto kTimeout = std::chrono::seconds(5);

TEST(KubeClientFailoverTest, ReadsAndUnsentWritesMoveToTheNextEndpoint) {
  StandIn healthy(false);
  auto client = ClientFor({DeadPort(), healthy.port()});
  auto read = client->Call("GET", "/api", nullptr, kTimeout);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(client->current_endpoint(), 1u);

  // Sticky: the healthy endpoint keeps serving, over the kept-alive connection.
  nlohmann::json body = {{"x", 1}};
  auto write = client->Call("PUT", "/api/x", &body, kTimeout);
  ASSERT_TRUE(write.ok()) << write.status().ToString();
  EXPECT_EQ(healthy.requests(), 2);
  EXPECT_EQ(client->current_endpoint(), 1u);

  // A write refused by a dead endpoint never left: it is sent to the next one.
  auto fresh = ClientFor({DeadPort(), healthy.port()});
  auto created = fresh->Call("POST", "/api/x", &body, kTimeout);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(healthy.requests(), 3);
}

// A replica that answers but cannot serve (its store out of reach: 503; the request timed out
// there: 504) is as good as down for its clients: a read goes on to the next endpoint at once, a
// write gets the answer (its outcome may be unknown) and the next request goes elsewhere. Before,
// only a transport failure moved a client on, and candidates stuck to a replica cut off from etcd
// found no leader (the fault suite's replica-partition round).
TEST(KubeClientFailoverTest, AReplicaThatCannotServeSendsTheNextRequestElsewhere) {
  for (Reply failing : {Reply::kUnavailable, Reply::kTimedOut}) {
    StandIn cut_off(failing), healthy(false);
    auto client = ClientFor({cut_off.port(), healthy.port()});
    auto read = client->Call("GET", "/api", nullptr, kTimeout);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(cut_off.requests(), 1);
    EXPECT_EQ(healthy.requests(), 1);
    EXPECT_EQ(client->current_endpoint(), 1u);

    auto writer = ClientFor({cut_off.port(), healthy.port()});
    nlohmann::json body = {{"x", 1}};
    auto refused = writer->Call("PUT", "/api/x", &body, kTimeout);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().reason(),
              failing == Reply::kUnavailable ? Reason::kServiceUnavailable : Reason::kTimeout);
    EXPECT_EQ(cut_off.requests(), 2);  // not repeated
    EXPECT_EQ(healthy.requests(), 1);
    auto next = writer->Call("PUT", "/api/x", &body, kTimeout);
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    EXPECT_EQ(cut_off.requests(), 2);
    EXPECT_EQ(healthy.requests(), 2);
  }
}

// One call, two answers: the replica that cannot serve sends the read on, and the next one's
// refusal of the credentials is the caller's answer (a 401 is not a replica's failure: it is
// neither masked by the 503 before it nor sent back to the first replica).
TEST(KubeClientFailoverTest, AReplicaThatCannotServeThenOneThatRefusesTheCredentials) {
  StandIn cut_off(Reply::kUnavailable), refusing(Reply::kUnauthorized);
  ClusterConfig config;
  ASSERT_TRUE(UseServers(config, {"http://127.0.0.1:" + std::to_string(cut_off.port()) +
                                  ",http://127.0.0.1:" + std::to_string(refusing.port())})
                  .ok());
  config.token = "stale";
  auto client = *KubeClient::Create(config);
  auto read = client->Call("GET", "/api", nullptr, kTimeout);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().reason(), Reason::kUnauthorized) << read.status().ToString();
  EXPECT_EQ(cut_off.requests(), 1);
  EXPECT_EQ(refusing.requests(), 1);
  EXPECT_EQ(client->current_endpoint(), 1u);
  // The next call stays with the replica that answered.
  EXPECT_EQ(client->Call("GET", "/api", nullptr, kTimeout).status().reason(),
            Reason::kUnauthorized);
  EXPECT_EQ(cut_off.requests(), 1);
  EXPECT_EQ(refusing.requests(), 2);
}

// A watch whose start a replica answers that it cannot serve moves on to the next endpoint too,
// and streams there (its list had been answered by the first).
TEST(KubeClientFailoverTest, AWatchWhoseStartTheReplicaCannotServeMovesOn) {
  StandIn cut_off(Reply::kWatchUnavailable), healthy(Reply::kWatchStreams);
  auto client = ClientFor({cut_off.port(), healthy.port()});
  auto subscription = client->WatchObject("/api/v1/namespaces/default/configmaps", "x",
                                          [](const std::string&, const nlohmann::json&) {});
  ASSERT_TRUE(tenure::testing::Eventually([&] { return subscription->active(); }));
  EXPECT_EQ(client->current_endpoint(), 1u);
  auto watched_on = [](const StandIn& s) {
    auto lines = s.request_lines();
    return std::count_if(lines.begin(), lines.end(), [](const std::string& line) {
      return line.find("watch=true") != std::string::npos;
    });
  };
  EXPECT_EQ(watched_on(cut_off), 1);
  EXPECT_EQ(watched_on(healthy), 1);
}

// With one endpoint there is nowhere else to go: the answer is the caller's, nothing is dropped.
TEST(KubeClientFailoverTest, OneEndpointThatCannotServeKeepsItsConnection) {
  StandIn cut_off(Reply::kUnavailable);
  auto client = ClientFor({cut_off.port()});
  for (int i = 0; i < 3; ++i) {
    auto read = client->Call("GET", "/api", nullptr, kTimeout);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().reason(), Reason::kServiceUnavailable);
  }
  EXPECT_EQ(cut_off.requests(), 3);
  EXPECT_EQ(cut_off.connections(), 1);
}

TEST(KubeClientFailoverTest, AWriteWithUnknownOutcomeIsNotRepeated) {
  StandIn hangs_up(true);
  StandIn healthy(false);
  auto client = ClientFor({hangs_up.port(), healthy.port()});
  nlohmann::json body = {{"x", 1}};
  auto write = client->Call("PUT", "/api/x", &body, kTimeout);
  EXPECT_EQ(write.status().reason(), Reason::kServiceUnavailable) << write.status().ToString();
  EXPECT_EQ(hangs_up.requests(), 1);
  EXPECT_EQ(healthy.requests(), 0);  // not sent twice
  // The next request goes to the other endpoint.
  EXPECT_EQ(client->current_endpoint(), 1u);
  ASSERT_TRUE(client->Call("PUT", "/api/x", &body, kTimeout).ok());
  EXPECT_EQ(healthy.requests(), 1);

  // A read on such an endpoint is repeated elsewhere within the same call.
  auto reads = ClientFor({hangs_up.port(), healthy.port()});
  auto read = reads->Call("GET", "/api", nullptr, kTimeout);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(healthy.requests(), 2);
}

// A replica that never answers gets half the call's time (with two endpoints), not all of it: a
// read still succeeds on the other one within the same call, and a write fails in time for its
// caller to read and write through the other one.
TEST(KubeClientFailoverTest, AHungEndpointGetsItsShareOfTheCallNotAllOfIt) {
  StandIn hung(Reply::kNever);
  StandIn healthy(Reply::kAnswer);
  auto client = ClientFor({hung.port(), healthy.port()});
  auto read = client->Call("GET", "/api", nullptr, std::chrono::seconds(2));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(hung.requests(), 1);
  EXPECT_EQ(healthy.requests(), 1);
  EXPECT_EQ(client->current_endpoint(), 1u);

  auto writes = ClientFor({hung.port(), healthy.port()});
  nlohmann::json body = {{"x", 1}};
  auto write = writes->Call("PUT", "/api/x", &body, std::chrono::seconds(2));
  ASSERT_EQ(write.status().reason(), Reason::kTimeout) << write.status().ToString();
  EXPECT_NE(write.status().message().find("this endpoint's share of the call's timeout"),
            std::string::npos)
      << write.status().ToString();
  EXPECT_EQ(healthy.requests(), 1);  // not repeated: its outcome is unknown
  ASSERT_TRUE(writes->Call("PUT", "/api/x", &body, std::chrono::seconds(2)).ok());
}

// Each attempt tells the server how long the client waits (`?timeout=`, as client-go sends it),
// so a replica can give up in time and share the time among its etcd members.
TEST(KubeClientFailoverTest, EachAttemptSendsItsShareAsTheRequestTimeout) {
  // The milliseconds of `?timeout=` in a request line that starts with `prefix`; -1 otherwise.
  auto timeout_ms = [](const std::string& line, const std::string& prefix) {
    if (line.compare(0, prefix.size(), prefix) != 0) return -1;
    size_t end = line.find("ms HTTP/1.1", prefix.size());
    return end == std::string::npos ? -1 : std::stoi(line.substr(prefix.size()));
  };
  StandIn hung(Reply::kNever);
  StandIn healthy(Reply::kAnswer);
  auto client = ClientFor({hung.port(), healthy.port()});
  auto read = client->Call("GET", "/api/v1/pods?limit=1", nullptr, std::chrono::seconds(2));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const std::string prefix = "GET /api/v1/pods?limit=1&timeout=";
  ASSERT_EQ(hung.request_lines().size(), 1u);
  int first = timeout_ms(hung.request_lines()[0], prefix);
  // Half of the 2 s call, less a tenth (ServerTimeout).
  EXPECT_GT(first, 800) << hung.request_lines()[0];
  EXPECT_LE(first, 900) << hung.request_lines()[0];
  ASSERT_EQ(healthy.request_lines().size(), 1u);
  int second = timeout_ms(healthy.request_lines()[0], prefix);
  EXPECT_GT(second, 0) << healthy.request_lines()[0];  // what the hung endpoint left
  EXPECT_LE(second, 1000) << healthy.request_lines()[0];
  auto plain = ClientFor({healthy.port()})->Call("GET", "/api", nullptr, std::chrono::seconds(3));
  ASSERT_TRUE(plain.ok());
  EXPECT_GT(timeout_ms(healthy.request_lines().back(), "GET /api?timeout="), 2000)
      << healthy.request_lines().back();
}

TEST(KubeClientFailoverTest, EveryEndpointDownGivesUnavailable) {
  auto client = ClientFor({DeadPort(), DeadPort()});
  auto read = client->Call("GET", "/api", nullptr, kTimeout);
  EXPECT_EQ(read.status().reason(), Reason::kServiceUnavailable) << read.status().ToString();
}

TEST(KubeClientFailoverTest, ABlackholedEndpointCostsOnlyTheConnectTimeout) {
  ClusterConfig config;
  // 192.0.2.0/24 (TEST-NET-1) is not routed: the connection attempt hangs (or fails at once
  // where there is no route at all); either way the client moves on in time.
  StandIn healthy(false);
  ASSERT_TRUE(UseServers(config, {"http://192.0.2.1:6443,http://127.0.0.1:" +
                                  std::to_string(healthy.port())})
                  .ok());
  config.connect_timeout = std::chrono::milliseconds(300);
  auto client = *KubeClient::Create(config);
  auto started = std::chrono::steady_clock::now();
  auto read = client->Call("GET", "/api", nullptr, kTimeout);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
}

}  // namespace
}  // namespace tenure::client
