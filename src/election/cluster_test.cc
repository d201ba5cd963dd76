// Tests of Cluster::Connect's checks of its options.
#include <gtest/gtest.h>

#include "tenure/cluster.h"

namespace tenure {
namespace {

TEST(ClusterTest, MaxConnectionsOutsideItsRangeIsRefusedNamingTheSetting) {
  for (size_t connections : {size_t{0}, size_t{1025}}) {
    ClusterOptions options;
    options.kubeconfig = "/nonexistent/kubeconfig";  // the options are checked first
    options.in_cluster_if_available = false;
    options.max_connections = connections;
    auto cluster = Cluster::Connect(options);
    ASSERT_FALSE(cluster.ok());
    EXPECT_EQ(cluster.status().reason(), Reason::kInvalid) << cluster.status().ToString();
    EXPECT_NE(cluster.status().message().find("ClusterOptions.max_connections"), std::string::npos)
        << cluster.status().message();
  }
}

}  // namespace
}  // namespace tenure
