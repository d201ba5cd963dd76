// CandidateRegistrar against a real tenure server (in-process, HTTPS): registration, pings
// acknowledged through the watch, periodic renewal on a FakeClock, re-creation after a deletion,
// deletion on Stop, version discovery and the server's authoritative validation.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "api/time.h"
#include "client/kube_client.h"
#include "election/cluster_access.h"
#include "tenure/candidate.h"
#include "tenure/fake_clock.h"
#include "tenure/testing/waits.h"
#include "testing/in_process_server.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

using testing::Eventually;

constexpr const char* kCandidates =
    "/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates";

class CandidateRegistrarServerTest : public ::testing::Test {
 protected:
  void StartServer(server::ServerOptions options = {}) {
    auto server = testing::InProcessServer::Start(std::move(options));
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    cluster_ = server_->cluster();
  }
  void SetUp() override {
    if (!::testing::Test::IsSkipped()) StartServer();
  }
  void TearDown() override {
    cluster_.reset();
    server_.reset();
  }
  void Restart(server::ServerOptions options) {
    TearDown();
    StartServer(std::move(options));
  }

  CandidateOptions Options(const std::string& identity = "kcm-1") {
    CandidateOptions o;
    o.namespace_ = "default";
    o.identity = identity;
    o.lease_name = "kube-controller-manager";
    o.binary_version = "1.34.0";
    o.emulation_version = "1.33.0";
    o.clock = clock_;
    return o;
  }
  std::unique_ptr<CandidateRegistrar> Register(CandidateOptions o) {
    auto r = CandidateRegistrar::Start(cluster_, std::move(o));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : nullptr;
  }
  Result<json> Get(const std::string& name = "kcm-1") {
    return KubeClientOf(*cluster_).Call("GET", std::string(kCandidates) + "/" + name, nullptr, 5s);
  }
  std::string RenewTime(const std::string& name = "kcm-1") {
    auto got = Get(name);
    return got.ok() ? got->value("/spec/renewTime"_json_pointer, std::string()) : "";
  }
  // Writes pingTime as the controller does.
  void Ping(api::Timestamp at, const std::string& name = "kcm-1") {
    auto got = Get(name);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    json object = *got;
    object["spec"]["pingTime"] = api::FormatMicroTime(at);
    auto put =
        KubeClientOf(*cluster_).Call("PUT", std::string(kCandidates) + "/" + name, &object, 5s);
    ASSERT_TRUE(put.ok()) << put.status().ToString();
  }

  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::unique_ptr<testing::InProcessServer> server_;
  std::shared_ptr<Cluster> cluster_;
};

TEST_F(CandidateRegistrarServerTest, RegistersTheCandidateWithRenewTimeNow) {
  auto registrar = Register(Options());
  ASSERT_TRUE(registrar);
  EXPECT_EQ(registrar->api_version(), "coordination.k8s.io/v1beta1");
  auto got = Get();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const json& spec = (*got)["spec"];
  EXPECT_EQ(spec["leaseName"], "kube-controller-manager");
  EXPECT_EQ(spec["binaryVersion"], "1.34.0");
  EXPECT_EQ(spec["emulationVersion"], "1.33.0");
  EXPECT_EQ(spec["strategy"], "OldestEmulationVersion");
  EXPECT_EQ(spec["renewTime"], api::FormatMicroTime(clock_->wall_now()));
  EXPECT_FALSE(spec.contains("pingTime"));
}

TEST_F(CandidateRegistrarServerTest, AcknowledgesAPingAtOnceThroughTheWatch) {
  auto registrar = Register(Options());
  ASSERT_TRUE(registrar);
  api::Timestamp t0 = clock_->wall_now();
  ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
  clock_->Advance(10s);  // far from the 5 min renewal: only a ping makes it write
  ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
  EXPECT_EQ(RenewTime(), api::FormatMicroTime(t0));
  // The fake clock stands still and the next renewal is 5 min away: only the ping, seen through
  // the watch, can make the registrar write now.
  Ping(t0 + 5s);
  ASSERT_TRUE(Eventually([&] { return RenewTime() == api::FormatMicroTime(t0 + 10s); }))
      << RenewTime();
  EXPECT_TRUE(Eventually([&] { return registrar->stats().acks == 1; }));
  EXPECT_EQ(registrar->stats().renewals, 0u);

  // A controller whose clock is ahead: renewTime = pingTime answers it exactly once.
  Ping(t0 + 60s);
  ASSERT_TRUE(Eventually([&] { return RenewTime() == api::FormatMicroTime(t0 + 60s); }))
      << RenewTime();
  ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
  EXPECT_TRUE(Eventually([&] { return registrar->stats().acks == 2; }));
}

TEST_F(CandidateRegistrarServerTest, RenewsEveryRenewIntervalOnTheInjectedClock) {
  CandidateOptions o = Options();
  o.renew_interval = 5min;
  auto registrar = Register(o);
  ASSERT_TRUE(registrar);
  api::Timestamp t0 = clock_->wall_now();
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
    clock_->Advance(4min);
    ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
    // Not yet due: at most a poll, no write.
    EXPECT_EQ(registrar->stats().renewals, static_cast<uint64_t>(i - 1));
    clock_->Advance(1min);
    ASSERT_TRUE(Eventually([&] { return RenewTime() == api::FormatMicroTime(t0 + i * 5min); }))
        << i << ": " << RenewTime();
  }
  EXPECT_TRUE(Eventually([&] { return registrar->stats().renewals == 3; }));
  EXPECT_EQ(registrar->stats().acks, 0u);
}

TEST_F(CandidateRegistrarServerTest, CreatesTheCandidateAgainWhenItIsDeleted) {
  auto registrar = Register(Options());
  ASSERT_TRUE(registrar);
  auto first = Get();
  ASSERT_TRUE(first.ok());
  std::string uid = (*first)["metadata"]["uid"];
  // As the controller's garbage collection of expired candidates does.
  auto deleted =
      KubeClientOf(*cluster_).Call("DELETE", std::string(kCandidates) + "/kcm-1", nullptr, 5s);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  ASSERT_TRUE(Eventually([&] {
    auto again = Get();
    return again.ok() && (*again)["metadata"]["uid"] != uid;
  }));
  EXPECT_TRUE(Eventually([&] { return registrar->stats().recreations == 1; }));
  auto again = Get();
  EXPECT_EQ((*again)["spec"]["binaryVersion"], "1.34.0");
  EXPECT_EQ((*again)["spec"]["renewTime"], api::FormatMicroTime(clock_->wall_now()));
}

TEST_F(CandidateRegistrarServerTest, StopDeletesTheCandidate) {
  auto registrar = Register(Options());
  ASSERT_TRUE(registrar);
  ASSERT_TRUE(Get().ok());
  EXPECT_TRUE(registrar->Stop().ok());
  EXPECT_TRUE(Get().status().IsNotFound());
  EXPECT_TRUE(registrar->Stop().ok());  // idempotent
  // Destroying a registrar stops it too.
  auto other = Register(Options("kcm-2"));
  ASSERT_TRUE(other);
  ASSERT_TRUE(Get("kcm-2").ok());
  other.reset();
  EXPECT_TRUE(Get("kcm-2").status().IsNotFound());
}

TEST_F(CandidateRegistrarServerTest, ACandidateLeftByAnEarlierProcessIsRenewedOrReplaced) {
  // What a killed process with the same identity leaves behind.
  auto leave = [&](const std::string& binary, const std::string& emulation) {
    json stale = {{"apiVersion", "coordination.k8s.io/v1beta1"},
                  {"kind", "LeaseCandidate"},
                  {"metadata", {{"name", "kcm-1"}}},
                  {"spec",
                   {{"leaseName", "kube-controller-manager"},
                    {"binaryVersion", binary},
                    {"emulationVersion", emulation},
                    {"strategy", "OldestEmulationVersion"},
                    {"renewTime", "2025-06-01T00:00:00.000000Z"}}}};
    auto created = KubeClientOf(*cluster_).Call("POST", kCandidates, &stale, 5s);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? (*created)["metadata"]["uid"].get<std::string>() : "";
  };
  // Same versions: the object is kept and renewed.
  std::string uid = leave("1.34.0", "1.33.0");
  auto registrar = Register(Options());
  ASSERT_TRUE(registrar);
  EXPECT_EQ((*Get())["metadata"]["uid"], uid);
  EXPECT_EQ(RenewTime(), api::FormatMicroTime(clock_->wall_now()));
  ASSERT_TRUE(registrar->Stop().ok());
  // Other versions (the process was upgraded): replaced, never changed in place.
  uid = leave("1.33.0", "1.33.0");
  registrar = Register(Options());
  ASSERT_TRUE(registrar);
  auto got = Get();
  ASSERT_TRUE(got.ok());
  EXPECT_NE((*got)["metadata"]["uid"], uid);
  EXPECT_EQ((*got)["spec"]["binaryVersion"], "1.34.0");
  EXPECT_EQ((*got)["spec"]["emulationVersion"], "1.33.0");
  EXPECT_EQ(registrar->stats().recreations, 0u);  // the old one's deletion is not ours
}

TEST_F(CandidateRegistrarServerTest, TheServersValidationIsAuthoritative) {
  CandidateOptions o = Options();
  o.namespace_ = "missing";
  auto r = CandidateRegistrar::Start(cluster_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("namespaces \"missing\" not found"), std::string::npos)
      << r.status().message();
  o = Options();
  o.binary_version = "1.33";
  r = CandidateRegistrar::Start(cluster_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().reason(), Reason::kInvalid);
}

TEST_F(CandidateRegistrarServerTest, FallsBackToV1alpha2AndExplainsWhenNoVersionIsServed) {
  server::ServerOptions alpha_only;
  alpha_only.runtime_config["coordination.k8s.io/v1beta1"] = false;
  Restart(alpha_only);
  auto registrar = Register(Options());
  ASSERT_TRUE(registrar);
  EXPECT_EQ(registrar->api_version(), "coordination.k8s.io/v1alpha2");
  auto got = KubeClientOf(*cluster_).Call(
      "GET", "/apis/coordination.k8s.io/v1alpha2/namespaces/default/leasecandidates/kcm-1", nullptr,
      5s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  registrar.reset();

  server::ServerOptions gate_off;
  gate_off.coordinated_leader_election = false;
  Restart(gate_off);
  auto r = CandidateRegistrar::Start(cluster_, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound());
  EXPECT_NE(r.status().message().find("CoordinatedLeaderElection"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace tenure
