// Tests of EndpointRotation and MayRetryElsewhere: when requests move to another endpoint.
#include "client/endpoint_rotation.h"

#include <gtest/gtest.h>

namespace tenure::client {
namespace {

TEST(EndpointRotationTest, StaysOnTheCurrentEndpointUntilItFails) {
  EndpointRotation rotation(3);
  EXPECT_EQ(rotation.current(), 0u);
  EXPECT_EQ(rotation.Failed(0), 1u);
  EXPECT_EQ(rotation.current(), 1u);
  EXPECT_EQ(rotation.Failed(1), 2u);
  EXPECT_EQ(rotation.Failed(2), 0u);  // round robin: the first gets its turn again
}

TEST(EndpointRotationTest, SeveralFailuresOfOneEndpointMoveOnOnce) {
  EndpointRotation rotation(3);
  EXPECT_EQ(rotation.Failed(0), 1u);
  // A second request that failed on endpoint 0 meanwhile must not skip the healthy endpoint 1.
  EXPECT_EQ(rotation.Failed(0), 1u);
  EXPECT_EQ(rotation.current(), 1u);
}

TEST(EndpointRotationTest, OneEndpointStaysPut) {
  EndpointRotation rotation(1);
  EXPECT_EQ(rotation.Failed(0), 0u);
  EXPECT_EQ(EndpointRotation(0).size(), 1u);
}

TEST(MayRetryElsewhereTest, ReadsAlwaysWritesOnlyWhenNeverSent) {
  EXPECT_TRUE(MayRetryElsewhere("GET", true));
  EXPECT_TRUE(MayRetryElsewhere("HEAD", true));
  EXPECT_TRUE(MayRetryElsewhere("PUT", false));
  EXPECT_TRUE(MayRetryElsewhere("POST", false));
  EXPECT_FALSE(MayRetryElsewhere("PUT", true));
  EXPECT_FALSE(MayRetryElsewhere("POST", true));
  EXPECT_FALSE(MayRetryElsewhere("DELETE", true));
  EXPECT_FALSE(MayRetryElsewhere("PATCH", true));
}

TEST(EndpointShareTest, AnEvenShareOfWhatIsLeftAndNothingWhenNothingIsLeft) {
  using namespace std::chrono_literals;
  EXPECT_EQ(EndpointShare(10s, 1), 10s);
  EXPECT_EQ(EndpointShare(10s, 2), 5s);
  EXPECT_EQ(EndpointShare(10s, 3), 3333ms);
  EXPECT_EQ(EndpointShare(300us, 1), 1ms);  // a little left: 1 ms, the smallest timeout sent
  // Waiting for a connection used it all up: nothing to send, not a wrapped huge timeout.
  EXPECT_EQ(EndpointShare(0ns, 1), 0ms);
  EXPECT_EQ(EndpointShare(-5ms, 1), 0ms);
  EXPECT_EQ(EndpointShare(-1ns, 3), 0ms);
}

TEST(ServerTimeoutTest, TheServerIsToldALittleLessSoItsAnswerArrivesInTime) {
  using namespace std::chrono_literals;
  EXPECT_EQ(ServerTimeout(10s), 9800ms);  // a tenth, at most 200 ms
  EXPECT_EQ(ServerTimeout(1000ms), 900ms);
  EXPECT_EQ(ServerTimeout(50ms), 45ms);
  EXPECT_EQ(ServerTimeout(5ms), 5ms);  // a tenth of 5 ms rounds to nothing
  EXPECT_EQ(ServerTimeout(1ms), 1ms);
}

}  // namespace
}  // namespace tenure::client
