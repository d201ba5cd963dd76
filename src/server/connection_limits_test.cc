// ConnectionLimits: the total and per-client caps, places freed with their handles.
#include "server/connection_limits.h"

#include <gtest/gtest.h>

#include <vector>

namespace tenure::server {
namespace {

TEST(ConnectionLimitsTest, CapsConnectionsInAllAndPerClient) {
  auto shared = ConnectionLimits::Make(5, 3);
  ConnectionLimits& limits = *shared;
  std::vector<std::shared_ptr<void>> a;
  for (int i = 0; i < 3; ++i) a.push_back(limits.Admit("10.0.0.1"));
  for (const auto& place : a) EXPECT_NE(place, nullptr);
  EXPECT_EQ(limits.Admit("10.0.0.1"), nullptr) << "the client's own cap";
  auto b1 = limits.Admit("10.0.0.2");
  auto b2 = limits.Admit("10.0.0.2");
  EXPECT_NE(b2, nullptr);
  EXPECT_EQ(limits.Admit("10.0.0.3"), nullptr) << "the total cap";
  EXPECT_EQ(limits.open(), 5u);
  EXPECT_EQ(limits.rejected(), 2u);
  a.pop_back();  // a closed connection frees its place
  auto c = limits.Admit("10.0.0.3");
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(limits.open(), 5u);
}

TEST(ConnectionLimitsTest, TheOpenFileLimitIsRaisedToTheHardLimit) {
  EXPECT_GE(RaiseOpenFileLimit(), 1024u);
}

}  // namespace
}  // namespace tenure::server
