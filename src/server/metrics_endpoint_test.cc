// Tests of MetricsEndpoint: section order, per-scrape rendering, GaugeFamily, concurrent Add.
#include "server/metrics_endpoint.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace tenure::server {
namespace {

TEST(MetricsEndpointTest, RendersTheServerSectionThenAddedSectionsInOrder) {
  MetricsEndpoint endpoint([] { return std::string("a 1\n"); });
  EXPECT_EQ(endpoint.Render(), "a 1\n");
  endpoint.Add([] { return std::string("b 2\n"); });
  endpoint.Add([] { return std::string("c 3\n"); });
  EXPECT_EQ(endpoint.Render(), "a 1\nb 2\nc 3\n");
}

TEST(MetricsEndpointTest, SectionsAreRenderedPerScrape) {
  std::atomic<int> value{1};
  MetricsEndpoint endpoint([&] { return GaugeFamily("x", "help", value.load()); });
  EXPECT_EQ(endpoint.Render(), "# HELP x help\n# TYPE x gauge\nx 1\n");
  value = 42;
  EXPECT_EQ(endpoint.Render(), "# HELP x help\n# TYPE x gauge\nx 42\n");
}

TEST(MetricsEndpointTest, GaugeFamilyKeepsLargeIntegersAndFractionsExact) {
  EXPECT_EQ(GaugeFamily("r", "h", 123456789012.0), "# HELP r h\n# TYPE r gauge\nr 123456789012\n");
  EXPECT_EQ(GaugeFamily("t", "h", 0.5), "# HELP t h\n# TYPE t gauge\nt 0.5\n");
}

TEST(MetricsEndpointTest, AddWhileScrapingIsSafe) {
  MetricsEndpoint endpoint([] { return std::string("s 0\n"); });
  std::atomic<bool> done{false};
  std::thread scraper([&] {
    while (!done) {
      std::string text = endpoint.Render();
      ASSERT_EQ(text.rfind("s 0\n", 0), 0u);
    }
  });
  for (int i = 0; i < 200; ++i) endpoint.Add([] { return std::string("n 1\n"); });
  done = true;
  scraper.join();
  EXPECT_EQ(endpoint.Render().size(), 4u + 200u * 4u);
}

}  // namespace
}  // namespace tenure::server
