// WatchMultiplexer against a stand-in server: what a shared watch does with answers no stream
// follows.
#include "client/watch_multiplexer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "client/http_stand_in_test_util.h"
#include "client/kube_client.h"

namespace tenure::client {
namespace {

using Steady = std::chrono::steady_clock;

size_t WatchStarts(const HttpStandIn& server) {
  auto lines = server.request_lines();
  return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("watch=true") != std::string::npos;
  }));
}

// When `count` watch starts have arrived (real time, at most 10 s); nullopt otherwise.
std::optional<Steady::time_point> WhenWatchStarts(const HttpStandIn& server, size_t count) {
  const auto deadline = Steady::now() + std::chrono::seconds(10);
  while (WatchStarts(server) < count) {
    if (Steady::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Steady::now();
}

// A server that ignores watch=true answers a watch with a list and ends it; a proxy may send
// such a list chunked, so that the watch reads it as a line. Starting the watch again at once
// made it a loop of requests as fast as the server answered; like client-go's reflector ("very
// short watch"), a watch that ends without an event is started again only after a growing
// pause, and a line that is no watch event does not count as one.
void ExpectAPauseBetweenStarts(bool chunked) {
  HttpStandIn server;
  ASSERT_TRUE(server.ok());
  server.Reply(
      200,
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]})"
      "\n",  // ended by a newline, as Go's JSON encoder ends what it writes
      chunked);
  ClusterConfig config;
  ASSERT_TRUE(UseServers(config, {server.url()}).ok());
  auto client = KubeClient::Create(config);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto subscription = (*client)->WatchObject("/api/v1/namespaces/default/configmaps", "x",
                                             [](const std::string&, const nlohmann::json&) {});
  auto second = WhenWatchStarts(server, 2);
  ASSERT_TRUE(second);
  auto fourth = WhenWatchStarts(server, 4);
  ASSERT_TRUE(fourth);
  // Pauses of 200 and 400 ms at least between the second start and the fourth (the first pause
  // is 100 ms); without them, these starts came within a millisecond or two.
  EXPECT_GE(*fourth - *second, std::chrono::milliseconds(550));
}

TEST(WatchMultiplexerTest, AWatchThatEndsWithoutAnEventIsStartedAgainAfterAPause) {
  {
    SCOPED_TRACE("a plain reply");
    ExpectAPauseBetweenStarts(/*chunked=*/false);
  }
  {
    SCOPED_TRACE("a chunked reply");
    ExpectAPauseBetweenStarts(/*chunked=*/true);
  }
}

// Ending a subscription waits for a delivery to it in progress, and only for that: the
// coordination controller's reconciler once ended its candidates' subscription while their
// handler waited for the reconciler, and the unsubscribe, waiting with the client's lock held,
// stopped every other subscription of the client until the test timed out.
TEST(WatchMultiplexerTest, EndingASubscriptionWhoseHandlerRunsHoldsUpNoOtherSubscription) {
  HttpStandIn server;
  ASSERT_TRUE(server.ok());
  const std::string path = "/api/v1/namespaces/default/configmaps";
  server.Reply(
      200,
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]})"
      "\n");
  ClusterConfig config;
  ASSERT_TRUE(UseServers(config, {server.url()}).ok());
  auto client = KubeClient::Create(config);
  ASSERT_TRUE(client.ok()) << client.status().ToString();

  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> first{true};
  auto busy = (*client)->WatchCollection(path, [&](const std::string&, const nlohmann::json&) {
    if (!first.exchange(false)) return;
    entered.set_value();
    released.wait();  // the handler of `busy` runs until the test releases it
  });
  ASSERT_EQ(entered.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);

  std::atomic<bool> ending{false};
  std::thread ender([&] {
    ending = true;
    busy.reset();  // waits for the handler
  });
  // Other subscriptions of the client come and go meanwhile, for 200 ms after `ender` began.
  auto others = std::async(std::launch::async, [&] {
    while (!ending) std::this_thread::yield();
    const auto until = Steady::now() + std::chrono::milliseconds(200);
    int cycles = 0;
    while (Steady::now() < until || cycles < 10) {
      auto other = (*client)->WatchObject(path, "other-" + std::to_string(cycles),
                                          [](const std::string&, const nlohmann::json&) {});
      ++cycles;
    }
    return cycles;
  });
  const bool others_went_on = others.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  release.set_value();
  ender.join();
  EXPECT_TRUE(others_went_on) << "a subscription waited for another one's handler";
  others.wait();
}

}  // namespace
}  // namespace tenure::client
