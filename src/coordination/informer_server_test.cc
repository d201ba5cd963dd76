// client::Informer (and the collection subscriptions of the shared watch under it) against an
// in-process tenure server: it lives here because the client layer's own tests cannot link the
// server.
#include "client/informer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>

#include "election/cluster_access.h"
#include "tenure/testing/waits.h"
#include "testing/in_process_server.h"

namespace tenure::client {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using tenure::testing::Eventually;

class InformerServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = testing::InProcessServer::Start();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  KubeClient& client() { return KubeClientOf(*server_->cluster()); }
  static std::string Path(const std::string& ns) {
    return "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases";
  }
  json CreateLease(const std::string& ns, const std::string& name, const std::string& holder) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", name}}},
                  {"spec", {{"holderIdentity", holder}}}};
    auto created = client().Call("POST", Path(ns), &lease, 5s);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? *created : json();
  }

  struct Seen {
    std::mutex mu;
    std::vector<std::string> events;  // "TYPE ns/name holder"
    void Add(const std::string& type, const json& o) {
      std::lock_guard lock(mu);
      events.push_back(type + " " + o.value("/metadata/namespace"_json_pointer, std::string()) +
                       "/" + o.value("/metadata/name"_json_pointer, std::string()) + " " +
                       o.value("/spec/holderIdentity"_json_pointer, std::string()));
    }
    bool Has(const std::string& e) {
      std::lock_guard lock(mu);
      return std::find(events.begin(), events.end(), e) != events.end();
    }
  };

  std::unique_ptr<testing::InProcessServer> server_;
};

// The tests that read the copy run with both ways of keeping it.
class InformerKeepTest : public InformerServerTest,
                         public ::testing::WithParamInterface<Informer::Keep> {};
INSTANTIATE_TEST_SUITE_P(Keep, InformerKeepTest,
                         ::testing::Values(Informer::Keep::kParsed, Informer::Keep::kText),
                         [](const auto& info) {
                           return info.param == Informer::Keep::kParsed ? "parsed" : "text";
                         });

TEST_P(InformerKeepTest, ListsThenWatchesEveryNamespaceKeyedByNamespaceAndName) {
  CreateLease("default", "x", "a");
  CreateLease("kube-system", "x", "b");
  Seen seen;
  Informer informer(
      client(), "/apis/coordination.k8s.io/v1/leases",
      [&](const std::string& type, const json& o) { seen.Add(type, o); }, GetParam());
  ASSERT_TRUE(Eventually([&] { return informer.synced() && seen.Has("SYNCED / "); }));
  EXPECT_TRUE(seen.Has("ADDED default/x a"));
  EXPECT_TRUE(seen.Has("ADDED kube-system/x b"));
  EXPECT_EQ(informer.size(), 2u);
  ASSERT_TRUE(Eventually([&] { return informer.active(); }));

  json x = CreateLease("default", "y", "c");
  ASSERT_TRUE(Eventually([&] { return seen.Has("ADDED default/y c"); }));
  x["spec"]["holderIdentity"] = "d";
  ASSERT_TRUE(client().Call("PUT", Path("default") + "/y", &x, 5s).ok());
  ASSERT_TRUE(Eventually([&] { return seen.Has("MODIFIED default/y d"); }));
  ASSERT_TRUE(client().Call("DELETE", Path("kube-system") + "/x", nullptr, 5s).ok());
  // A deletion comes with the last known object.
  ASSERT_TRUE(Eventually([&] { return seen.Has("DELETED kube-system/x b"); }));
  EXPECT_FALSE(informer.Get("kube-system", "x"));
  ASSERT_TRUE(informer.Get("default", "x"));
  EXPECT_EQ(informer.List([](const json& o) { return o["metadata"]["name"] == "x"; }).size(), 1u);
}

TEST_F(InformerServerTest, ALateCollectionSubscriberGetsTheWholeCollection) {
  CreateLease("default", "watched", "a");
  // A per-object subscriber starts the shared stream of the collection first.
  std::atomic<int> object_events{0};
  auto subscription = client().WatchObject(
      Path("default"), "watched", [&](const std::string&, const json&) { ++object_events; });
  ASSERT_TRUE(Eventually([&] { return subscription->active(); }));
  CreateLease("default", "other", "b");
  Seen seen;
  Informer informer(client(), Path("default"),
                    [&](const std::string& type, const json& o) { seen.Add(type, o); });
  ASSERT_TRUE(Eventually([&] { return informer.synced(); }));
  EXPECT_TRUE(seen.Has("ADDED default/watched a"));
  EXPECT_TRUE(seen.Has("ADDED default/other b"));
  // The per-object subscriber still gets only its object.
  int before = object_events.load();
  CreateLease("default", "third", "c");
  ASSERT_TRUE(Eventually([&] { return seen.Has("ADDED default/third c"); }));
  EXPECT_EQ(object_events.load(), before);
}

TEST_P(InformerKeepTest, AFilteredCopyHoldsAndReportsOnlyTheObjectsItsFilterAccepts) {
  std::mutex mu;
  std::set<std::string> wanted = {"a"};
  auto want = [&](const std::string& name) {
    std::lock_guard lock(mu);
    wanted.insert(name);
  };
  json a = CreateLease("default", "a", "x");
  json b = CreateLease("default", "b", "x");
  Seen seen;
  Informer informer(
      client(), Path("default"), [&](const std::string& type, const json& o) { seen.Add(type, o); },
      GetParam(),
      [&](const std::string& ns, const std::string& name) {
        std::lock_guard lock(mu);
        return ns == "default" && wanted.count(name) > 0;
      });
  ASSERT_TRUE(Eventually([&] { return informer.synced() && informer.active(); }));
  EXPECT_TRUE(seen.Has("ADDED default/a x"));
  EXPECT_FALSE(seen.Has("ADDED default/b x"));
  EXPECT_EQ(informer.size(), 1u);

  // b's change is turned away; a's, written after it, arrives, so b's had its chance.
  b["spec"]["holderIdentity"] = "y";
  auto b2 = client().Call("PUT", Path("default") + "/b", &b, 5s);
  ASSERT_TRUE(b2.ok());
  a["spec"]["holderIdentity"] = "y";
  ASSERT_TRUE(client().Call("PUT", Path("default") + "/a", &a, 5s).ok());
  ASSERT_TRUE(Eventually([&] { return seen.Has("MODIFIED default/a y"); }));
  EXPECT_FALSE(seen.Has("ADDED default/b y"));
  EXPECT_FALSE(informer.Get("default", "b"));

  // Accepted from now on: what was turned away is not brought back, later events are.
  want("b");
  EXPECT_FALSE(informer.Get("default", "b"));
  json b3 = *b2;
  b3["spec"]["holderIdentity"] = "z";
  ASSERT_TRUE(client().Call("PUT", Path("default") + "/b", &b3, 5s).ok());
  ASSERT_TRUE(Eventually([&] { return seen.Has("ADDED default/b z"); }));
  EXPECT_EQ(informer.size(), 2u);

  informer.Forget("default", "a");
  EXPECT_FALSE(informer.Get("default", "a"));
  EXPECT_EQ(informer.size(), 1u);
}

TEST_P(InformerKeepTest, RememberKeepsTheNewestVersion) {
  json v1 = CreateLease("default", "x", "a");
  Informer informer(
      client(), Path("default"), [](const std::string&, const json&) {}, GetParam());
  ASSERT_TRUE(Eventually([&] { return informer.synced(); }));
  json v2 = v1;
  v2["spec"]["holderIdentity"] = "b";
  auto written = client().Call("PUT", Path("default") + "/x", &v2, 5s);
  ASSERT_TRUE(written.ok());
  informer.Remember(*written);
  EXPECT_EQ((*informer.Get("default", "x"))["spec"]["holderIdentity"], "b");
  informer.Remember(v1);  // older: ignored
  EXPECT_EQ((*informer.Get("default", "x"))["spec"]["holderIdentity"], "b");
}

// The shared watch leaves out managedFields (neither the handler nor the copy gets them, from
// the listing or from the watch), and an update sent from the copy keeps the server's entries.
TEST_F(InformerServerTest, ObjectsComeWithoutManagedFieldsAndAnUpdateFromTheCopyKeepsThem) {
  json created = CreateLease("default", "x", "a");
  ASSERT_TRUE(created["metadata"].contains("managedFields"));
  std::atomic<int> handler_saw{0};
  std::atomic<bool> handler_saw_fields{false};
  Informer informer(
      client(), Path("default"),
      [&](const std::string& type, const json& o) {
        if (type != "ADDED" && type != "MODIFIED") return;
        ++handler_saw;
        if (o["metadata"].contains("managedFields")) handler_saw_fields = true;
      },
      Informer::Keep::kText);
  ASSERT_TRUE(Eventually([&] { return informer.synced(); }));
  CreateLease("default", "y", "a");  // through the watch, not the listing
  ASSERT_TRUE(Eventually([&] { return informer.Get("default", "y").has_value(); }));
  EXPECT_EQ(handler_saw.load(), 2);
  EXPECT_FALSE(handler_saw_fields.load());
  auto copy = informer.Get("default", "x");
  ASSERT_TRUE(copy);
  EXPECT_FALSE((*copy)["metadata"].contains("managedFields"));
  EXPECT_EQ((*copy)["metadata"]["name"], "x");
  EXPECT_EQ((*copy)["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  EXPECT_EQ((*copy)["spec"], created["spec"]);
  (*copy)["spec"]["holderIdentity"] = "b";
  auto written = client().Call("PUT", Path("default") + "/x", &*copy, 5s);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const json& fields = (*written)["metadata"]["managedFields"];
  ASSERT_EQ(fields.size(), 1u) << fields.dump();
  EXPECT_EQ(fields[0]["manager"], created["metadata"]["managedFields"][0]["manager"]);
}

}  // namespace
}  // namespace tenure::client
