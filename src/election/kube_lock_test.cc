// LeaseLock and ConfigMapLock against an HttpStandIn: odd resourceVersions, encoded paths, bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "api/time.h"

#include "client/http_stand_in_test_util.h"
#include "client/kube_client.h"
#include "election/cluster_access.h"
#include "tenure/kube_locks.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::shared_ptr<Cluster> ClusterOf(const client::HttpStandIn& server) {
  EXPECT_TRUE(server.ok());
  client::ClusterConfig config;
  EXPECT_TRUE(client::UseServers(config, {server.url()}).ok());
  return ClusterAccess::Wrap(*client::KubeClient::Create(config));
}

struct LockKind {
  const char* name;
  std::shared_ptr<Lock> (*make)(std::shared_ptr<Cluster>, KubeLockOptions);
  const char* collection;  // in namespace NS
};

void PrintTo(const LockKind& kind, std::ostream* os) { *os << kind.name; }

const LockKind kLockKinds[] = {
    {"Lease", NewLeaseLock, "/apis/coordination.k8s.io/v1/namespaces/NS/leases"},
    {"ConfigMap", NewConfigMapLock, "/api/v1/namespaces/NS/configmaps"},
};

class KubeLockTest : public ::testing::TestWithParam<LockKind> {
 protected:
  std::string Collection(const std::string& ns) const {
    std::string path = GetParam().collection;
    return path.replace(path.find("NS"), 2, ns);
  }
  // The lock's object at resourceVersion `rv` (JSON text, or none when empty).
  std::string Object(const std::string& rv) const {
    std::string meta = R"("name":"leader","namespace":"default")";
    if (!rv.empty()) meta += R"(,"resourceVersion":)" + rv;
    return std::string(R"({"kind":")") + GetParam().name + R"(","metadata":{)" + meta + "}}";
  }
  LeaderElectionRecord Record() const {
    LeaderElectionRecord r;
    r.holder_identity = "me";
    r.lease_duration_seconds = 15;
    return r;
  }
};

// A lock's version orders its writes and is the leader's fencing token: a reply whose
// resourceVersion is no integer is an error the elector retries, never an exception.
TEST_P(KubeLockTest, AResourceVersionThatIsNotAnIntegerIsAnError) {
  client::HttpStandIn server;
  auto lock = GetParam().make(ClusterOf(server), {"default", "leader", "me", false});
  for (std::string rv : {R"("abc")", R"("")", R"("-1")", R"(" 7")", R"("99999999999999999999")",
                         R"("9223372036854775808")", "7", "null"}) {
    server.Reply(200, Object(rv));
    auto got = lock->Get(5s);
    ASSERT_FALSE(got.ok()) << rv;
    EXPECT_EQ(got.status().reason(), Reason::kInternalError) << rv;
    EXPECT_THAT(got.status().message(), HasSubstr("metadata.resourceVersion " + rv));
    auto created = lock->Create(Record(), 5s);
    ASSERT_FALSE(created.ok()) << rv;
    EXPECT_EQ(created.status().reason(), Reason::kInternalError) << rv;
  }
  server.Reply(200, "[1]");
  EXPECT_EQ(lock->Get(5s).status().reason(), Reason::kInternalError);
}

TEST_P(KubeLockTest, IntegerResourceVersionsAreTheVersion) {
  client::HttpStandIn server;
  auto lock = GetParam().make(ClusterOf(server), {"default", "leader", "me", false});
  server.Reply(200, Object(R"("9223372036854775807")"));
  auto got = lock->Get(5s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->version, INT64_MAX);
  server.Reply(200, Object(""));  // none: 0, as before
  got = lock->Get(5s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->version, 0);

  // A reply that cannot be read is not kept: the next update still names the last good version.
  server.Reply(200, Object(R"("12")"));
  ASSERT_TRUE(lock->Get(5s).ok());
  server.Reply(200, Object(R"("x")"));
  EXPECT_FALSE(lock->Update(Record(), 5s).ok());
  server.Reply(200, Object(R"("13")"));
  auto updated = lock->Update(Record(), 5s);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->version, 13);
  auto bodies = server.request_bodies();
  ASSERT_FALSE(bodies.empty());
  EXPECT_THAT(bodies.back(), HasSubstr(R"("resourceVersion":"12")"));
}

// Namespace and name are one path segment each: unencoded, the name "x?y" ended the path and
// read the object "x" (with "y" as a query parameter), and "team a" broke the request line.
TEST_P(KubeLockTest, NamespaceAndNameAreEncodedInThePath) {
  client::HttpStandIn server;
  server.Reply(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound",)"
                    R"("message":"not found","code":404})");
  auto lock = GetParam().make(ClusterOf(server), {"team a", "x?y", "me", false});
  EXPECT_TRUE(lock->Get(5s).status().IsNotFound());
  EXPECT_FALSE(lock->Create(Record(), 5s).ok());
  auto lines = server.request_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], StartsWith("GET " + Collection("team%20a") + "/x%3Fy?timeout="));
  EXPECT_THAT(lines[1], StartsWith("POST " + Collection("team%20a") + "?timeout="));
}

// What the locks write, byte for byte (the record through the typed codec): a change here is a
// change on the wire. An update sends the server's object back with the record written over it:
// fields the record does not hold, even inside spec, are kept.
TEST(KubeLockWireTest, CreateAndUpdateBodies) {
  client::HttpStandIn server;
  LeaderElectionRecord r;
  r.holder_identity = "me";
  r.lease_duration_seconds = 15;
  r.acquire_time =
      std::chrono::sys_days{std::chrono::year{2026} / 1 / 2} + 3h + 4min + 5s + 123456789ns;
  r.renew_time = r.acquire_time + 2s;
  r.leader_transitions = 3;
  auto lease = NewLeaseLock(ClusterOf(server), {"default", "leader", "me", false});
  server.Reply(201, R"({"metadata":{"name":"leader","namespace":"default","resourceVersion":"4",)"
                    R"("uid":"u"},"spec":{"x":1},"status":{"kept":true}})");
  ASSERT_TRUE(lease->Create(r, 5s).ok());
  r.strategy = "OldestEmulationVersion";
  r.preferred_holder = "you";
  ASSERT_TRUE(lease->Update(r, 5s).ok());

  auto configmap = NewConfigMapLock(ClusterOf(server), {"default", "leader", "me", false});
  server.Reply(201, R"({"metadata":{"name":"leader","namespace":"default","resourceVersion":"4",)"
                    R"("annotations":{"other":"kept"}},"data":{"k":"v"}})");
  ASSERT_TRUE(configmap->Create(r, 5s).ok());
  ASSERT_TRUE(configmap->Update(r, 5s).ok());

  auto bodies = server.request_bodies();
  ASSERT_EQ(bodies.size(), 4u);
  const std::string spec = R"("acquireTime":"2026-01-02T03:04:05.123456Z","holderIdentity":"me",)"
                           R"("leaseDurationSeconds":15,"leaseTransitions":3,)";
  EXPECT_EQ(bodies[0],
            R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader",)"
            R"("namespace":"default"},"spec":{)" +
                spec + R"("renewTime":"2026-01-02T03:04:07.123456Z"}})");
  EXPECT_EQ(bodies[1],
            R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader",)"
            R"("namespace":"default","resourceVersion":"4","uid":"u"},"spec":{)" +
                spec +
                R"("preferredHolder":"you","renewTime":"2026-01-02T03:04:07.123456Z",)"
                R"("strategy":"OldestEmulationVersion","x":1},"status":{"kept":true}})");
  EXPECT_THAT(bodies[2],
              StartsWith(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{)"
                         R"("annotations":{"control-plane.alpha.kubernetes.io/leader":)"));
  EXPECT_THAT(bodies[2], HasSubstr(R"(},"name":"leader","namespace":"default"}})"));
  // The server's members in the server's order, apiVersion and kind first when it left them out.
  EXPECT_THAT(bodies[3], StartsWith(R"({"apiVersion":"v1","kind":"ConfigMap",)"
                                    R"("metadata":{"annotations":{)"
                                    R"("control-plane.alpha.kubernetes.io/leader":)"));
  EXPECT_THAT(bodies[3], HasSubstr(R"("other":"kept"},"name":"leader","namespace":"default",)"
                                   R"("resourceVersion":"4"},"data":{"k":"v"}})"));
}

// The body of the update of `lock` with `record` after it read `object` from `server`.
std::string UpdateBodyAfterReading(client::HttpStandIn& server, Lock& lock,
                                   const std::string& object, const LeaderElectionRecord& record) {
  server.Reply(200, object);
  const size_t before = server.request_bodies().size();
  EXPECT_TRUE(lock.Get(5s).ok());
  EXPECT_TRUE(lock.Update(record, 5s).ok());
  auto bodies = server.request_bodies();  // GET, PUT
  EXPECT_EQ(bodies.size(), before + 2);
  return bodies.size() == before + 2 ? bodies.back() : "";
}

LeaderElectionRecord Me() {
  LeaderElectionRecord r;
  r.holder_identity = "me";
  return r;
}

// A renewal writes the spec as text when the spec read holds only the record's members, and
// through the typed codec when it holds a member of a newer server's (kept): both write the same
// record, member for member, and the text is what the codec would write, byte for byte.
TEST(KubeLockWireTest, ARenewalWritesTheSpecTheTypedCodecWrites) {
  const auto at = [](int year, std::chrono::nanoseconds in_day) {
    return api::Timestamp(std::chrono::sys_days{std::chrono::year{year} / 3 / 4} + in_day);
  };
  std::vector<LeaderElectionRecord> records(6);
  records[0].holder_identity = "me";
  records[0].lease_duration_seconds = 15;
  records[0].acquire_time = at(2026, 1h + 999999999ns);
  records[0].renew_time = at(2026, 2h + 5us);
  records[1] = {};  // nobody: times at the epoch, every number 0
  records[2].holder_identity = "\u00e9t\u00e9 \"quoted\" \\ \n";
  records[2].leader_transitions = 2147483647;
  records[2].lease_duration_seconds = -1;
  records[2].acquire_time = at(1900, 0ns);
  records[2].renew_time = at(2200, 23h);
  records[3] = records[0];
  records[3].strategy = "OldestEmulationVersion";
  records[3].preferred_holder = "next";
  records[4] = records[0];
  records[4].strategy = "example.com/mine";
  records[5] = records[0];
  records[5].preferred_holder = "only";
  const std::string head =
      R"({"metadata":{"name":"l","namespace":"default","resourceVersion":"4"},)";
  for (size_t i = 0; i < records.size(); ++i) {
    client::HttpStandIn server;
    auto lock = NewLeaseLock(ClusterOf(server), {"default", "l", "me", false});
    // Every member of the record, odd values included: written as text.
    const std::string text_body = UpdateBodyAfterReading(
        server, *lock,
        head + R"("spec":{"holderIdentity":"x","leaseDurationSeconds":"bad",)"
               R"("acquireTime":null,"renewTime":"2026-01-01T00:00:00Z",)"
               R"("leaseTransitions":1,"strategy":"s","preferredHolder":"p"}})",
        records[i]);
    // A member of a newer server's: written through the codec, and kept.
    const std::string codec_body = UpdateBodyAfterReading(
        server, *lock, head + R"("spec":{"holderIdentity":"x","newer":{"a":[1]}}})", records[i]);
    const nlohmann::json as_text = nlohmann::json::parse(text_body)["spec"];
    nlohmann::json through_codec = nlohmann::json::parse(codec_body)["spec"];
    EXPECT_EQ(through_codec["newer"], nlohmann::json::parse(R"({"a":[1]})")) << i;
    through_codec.erase("newer");
    EXPECT_EQ(as_text, through_codec) << i;
    EXPECT_THAT(text_body, HasSubstr(R"("spec":)" + as_text.dump() + "}")) << i;
  }
}

// The object is sent back without its managedFields, every other byte of it as it came.
TEST(KubeLockWireTest, AnUpdateSendsTheObjectBackWithoutItsManagedFields) {
  client::HttpStandIn server;
  auto lock = NewLeaseLock(ClusterOf(server), {"default", "l", "me", false});
  const std::string body = UpdateBodyAfterReading(
      server, *lock,
      R"({"kind":"Lease", "apiVersion":"coordination.k8s.io/v1","metadata":)"
      R"({"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}], "name":"l",)"
      R"("resourceVersion":"9","labels":{"a":"\u0062"}},"spec":{},"status":[1, 2]})",
      Me());
  EXPECT_THAT(body, StartsWith(R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1",)"
                               R"("metadata":{ "name":"l","resourceVersion":"9",)"
                               R"("labels":{"a":"\u0062"}},"spec":{"acquireTime":)"));
  EXPECT_THAT(body, HasSubstr(R"(},"status":[1, 2]})"));
}

// A lock with labels writes an object back as it came when it carries them all, and with them
// put on its metadata otherwise: missing, of another value, not a string, or no labels object.
TEST(KubeLockWireTest, AnUpdateAddsTheLabelsTheObjectLacks) {
  const std::string head = R"({"kind":"Lease","metadata":{"name":"l","resourceVersion":"3")";
  const std::string spec = R"(},"spec":{"holderIdentity":"me"}})";
  struct Case {
    std::string labels;  // the metadata's labels member as the server sent it ("" none)
    bool kept;           // the metadata goes back as it came
  };
  for (const Case& c : std::vector<Case>{{R"("labels":{"app":"x","team":"a.b"})", true},
                                         {R"("labels":{"team":"a.b","z":"","app":"x"})", true},
                                         {R"("labels":{"app":"x","team":"a"})", false},
                                         {R"("labels":{"app":"x"})", false},
                                         {R"("labels":{"app":"x","team":1})", false},
                                         {R"("labels":["app"])", false},
                                         {"", false}}) {
    client::HttpStandIn server;
    KubeLockOptions options{"default", "l", "me", false};
    options.labels = {{"app", "x"}, {"team", "a.b"}};
    auto lock = NewLeaseLock(ClusterOf(server), options);
    const std::string metadata_rest = c.labels.empty() ? "" : "," + c.labels;
    const std::string body =
        UpdateBodyAfterReading(server, *lock, head + metadata_rest + spec, Me());
    const nlohmann::json sent = nlohmann::json::parse(body);
    EXPECT_EQ(sent["metadata"]["labels"]["app"], "x") << c.labels;
    EXPECT_EQ(sent["metadata"]["labels"]["team"], "a.b") << c.labels;
    EXPECT_EQ(body.find(R"({"name":"l","resourceVersion":"3")" + metadata_rest + "}") !=
                  std::string::npos,
              c.kept)
        << body;
  }
}

INSTANTIATE_TEST_SUITE_P(Locks, KubeLockTest, ::testing::ValuesIn(kLockKinds),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tenure
