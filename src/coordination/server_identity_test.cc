// ServerIdentity: kube's identity Lease name, the Lease on a real server, and the collection of
// expired ones.
#include "coordination/server_identity.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "api/time.h"
#include "client/kube_client.h"
#include "election/cluster_access.h"
#include "testing/in_process_server.h"

namespace tenure::coordination {
namespace {

using nlohmann::json;

constexpr char kLeases[] = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";

// The same as kube-apiserver computes them (base32 of SHA-256 over the length-prefixed host name
// and "kube-apiserver"), checked against an independent computation.
TEST(ServerIdentityTest, TheLeaseNameIsKubeApiServersId) {
  EXPECT_EQ(ApiServerId("master-1"), "apiserver-wj467rbl25eeviqacfhvg2yvnm");
  EXPECT_EQ(ApiServerId("node-a:6443"), "apiserver-wwhivoc33d25myraxipwl6exye");
}

TEST(ServerIdentityTest, KeepsItsLeaseAndCollectsExpiredOnes) {
  auto server = testing::InProcessServer::Start();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  client::KubeClient& kube = KubeClientOf(*(*server)->cluster());
  auto identity_lease = [&](const std::string& name, api::Timestamp renewed) {
    json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata",
         {{"name", name}, {"labels", {{std::string(kApiServerIdentityLabel), "kube-apiserver"}}}}},
        {"spec",
         {{"holderIdentity", name + "_x"},
          {"leaseDurationSeconds", 3600},
          {"renewTime", api::FormatMicroTime(renewed)}}}};
    ASSERT_TRUE(kube.Call("POST", kLeases, &lease, std::chrono::seconds(5)).ok());
  };
  const auto now = std::chrono::system_clock::now();
  identity_lease("apiserver-gone", now - std::chrono::hours(2));
  identity_lease("apiserver-alive", now - std::chrono::minutes(10));

  ServerIdentityOptions options;
  options.hostname = "host-1";
  options.port = 6443;
  auto identity = ServerIdentity::Start(kube.shared_from_this(), options);
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ((*identity)->lease_name(), ApiServerId("host-1:6443"));
  auto get = [&](const std::string& name) {
    return kube.Call("GET", std::string(kLeases) + "/" + name, nullptr, std::chrono::seconds(5));
  };
  // The first renewal and collection run on the identity's thread, at once.
  auto until = [](const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
  };
  ASSERT_TRUE(until([&] { return get((*identity)->lease_name()).ok(); }));
  ASSERT_TRUE(until([&] { return !get("apiserver-gone").ok(); }));
  auto mine = get((*identity)->lease_name());
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  EXPECT_EQ((*mine)["metadata"]["labels"][std::string(kApiServerIdentityLabel)], "kube-apiserver");
  EXPECT_EQ((*mine)["metadata"]["labels"]["kubernetes.io/hostname"], "host-1");
  EXPECT_EQ((*mine)["spec"]["holderIdentity"], (*identity)->holder());
  EXPECT_EQ((*mine)["spec"]["leaseDurationSeconds"], 3600);
  EXPECT_EQ((*identity)->holder().rfind((*identity)->lease_name() + "_", 0), 0u);
  EXPECT_EQ(get("apiserver-gone").status().reason(), Reason::kNotFound);
  EXPECT_TRUE(get("apiserver-alive").ok());
  (*identity)->Stop();
}

}  // namespace
}  // namespace tenure::coordination
