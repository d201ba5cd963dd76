// KindStrategy (generic and Namespace's) and BeforeCreate / BeforeUpdate around it.
#include "server/kind_strategy.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/before_write.h"
#include "store/sqlite_store.h"
#include "store/store_test_util.h"
#include "tenure/fake_clock.h"

namespace tenure::server {
namespace {

using nlohmann::json;

const KindStrategy& Strategy(std::string_view group, std::string_view resource) {
  return StrategyFor(*api::FindByResource(group, resource));
}

TEST(KindStrategyTest, UpdateFlagsAreKubeApiserversPerKind) {
  struct Flags {
    std::string_view group, resource;
    bool create_on_update, unconditional_update;
  };
  for (const Flags& f :
       {Flags{"", "configmaps", false, true}, Flags{"", "namespaces", false, true},
        Flags{"", "events", true, true}, Flags{"coordination.k8s.io", "leases", true, false},
        Flags{"coordination.k8s.io", "leasecandidates", true, false}}) {
    const KindStrategy& s = Strategy(f.group, f.resource);
    EXPECT_EQ(s.AllowCreateOnUpdate(), f.create_on_update) << f.resource;
    EXPECT_EQ(s.AllowUnconditionalUpdate(), f.unconditional_update) << f.resource;
  }
}

TEST(KindStrategyTest, EveryServedKindHasAStrategyOfItsOwnKind) {
  for (const api::KindInfo* kind : api::AllKinds()) {
    EXPECT_EQ(&StrategyFor(*kind).kind(), kind) << kind->kind;
  }
  api::KindInfo unknown;
  unknown.kind = "Unknown";
  EXPECT_THROW(StrategyFor(unknown), std::invalid_argument);
}

TEST(KindStrategyTest, ANamespaceIsLabelledWithItsNameAndStartsActive) {
  const KindStrategy& s = Strategy("", "namespaces");
  json ns = {{"metadata", {{"name", "team"}}}};
  s.Default(ns);
  s.PrepareForCreate(ns);
  EXPECT_EQ(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "team");
  EXPECT_EQ(ns["spec"]["finalizers"], json::array({"kubernetes"}));
  EXPECT_EQ(ns["status"]["phase"], "Active");
  // An update without status keeps the stored one; the old object is read beyond metadata.
  json update = {{"metadata", {{"name", "team"}}}};
  s.PrepareForUpdate(update, ns, "");
  EXPECT_EQ(update["status"], ns["status"]);
  EXPECT_FALSE(s.UpdateReadsOnlyOldMetadata());
  EXPECT_TRUE(Strategy("coordination.k8s.io", "leases").UpdateReadsOnlyOldMetadata());
}

TEST(KindStrategyTest, BuiltInNamespacesCannotBeDeleted) {
  const KindStrategy& s = Strategy("", "namespaces");
  for (const char* name : {"default", "kube-system", "kube-public"}) {
    Status status = s.ValidateDelete(name);
    EXPECT_EQ(status.reason(), Reason::kForbidden) << name;
    EXPECT_EQ(status.message(), "namespaces \"" + std::string(name) +
                                    "\" is forbidden: this namespace may not be deleted");
    EXPECT_EQ(status.details().kind, "namespaces");
  }
  EXPECT_TRUE(s.ValidateDelete("kube-node-lease").ok());
  EXPECT_TRUE(Strategy("", "configmaps").ValidateDelete("default").ok());
}

class BeforeWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    auto sqlite = store::SqliteStore::Open({.path = dir_.File("db")});
    ASSERT_TRUE(sqlite.ok()) << sqlite.status().ToString();
    store_ = std::move(*sqlite);
    ASSERT_TRUE(store_
                    ->WriteSync({store::WriteOp::Kind::kCreate, "/registry/namespaces/team",
                                 R"({"metadata":{"name":"team"}})", 0})
                    .ok());
  }
  RequestInfo Info(const std::string& ns, const std::string& name = "") {
    RequestInfo info;
    info.namespace_ = ns;
    info.name = name;
    return info;
  }
  static json ConfigMap(json metadata) {
    return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", std::move(metadata)}};
  }

  store::test_util::TempDir dir_;
  std::unique_ptr<store::SqliteStore> store_;
  FakeClock clock_;
};

TEST_F(BeforeWriteTest, ANewObjectGetsItsNameUidAndCreationTimestamp) {
  const KindStrategy& s = Strategy("", "configmaps");
  RequestInfo info = Info("team");
  json cm = ConfigMap({{"generateName", "cm-"}, {"generation", 7}});
  ASSERT_TRUE(BeforeCreate(s, {info, *store_, store::kNoDeadline, clock_}, cm).ok());
  std::string name = cm["metadata"]["name"];
  EXPECT_EQ(name.size(), 8u);
  EXPECT_EQ(name.rfind("cm-", 0), 0u);
  EXPECT_EQ(cm["metadata"]["namespace"], "team");
  EXPECT_EQ(cm["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_TRUE(cm["metadata"].contains("creationTimestamp"));
  EXPECT_FALSE(cm["metadata"].contains("generation"));
}

TEST_F(BeforeWriteTest, ACreateIsRefusedInKubeApiserversOrder) {
  const KindStrategy& s = Strategy("", "configmaps");
  auto create = [&](const std::string& url_ns, json metadata) {
    RequestInfo info = Info(url_ns);
    json cm = ConfigMap(std::move(metadata));
    return BeforeCreate(s, {info, *store_, store::kNoDeadline, clock_}, cm);
  };
  // Another namespace in the body comes before the namespace's existence.
  Status s1 = create("gone", {{"name", "a"}, {"namespace", "other"}});
  EXPECT_EQ(
      s1.message(),
      "the namespace of the provided object does not match the namespace sent on the request");
  Status s2 = create("gone", {{"name", "a"}, {"resourceVersion", "5"}});
  EXPECT_EQ(s2.reason(), Reason::kNotFound);
  EXPECT_EQ(s2.message(), "namespaces \"gone\" not found");
  Status s3 = create("team", {{"name", "a"}, {"resourceVersion", "5"}});
  EXPECT_EQ(s3.message(), "resourceVersion should not be set on objects to be created");
  Status s4 = create("team", {{"name", "A"}});
  EXPECT_EQ(s4.reason(), Reason::kInvalid);
  EXPECT_EQ(s4.details().kind, "ConfigMap");
  EXPECT_EQ(s4.details().name, "A");
}

TEST_F(BeforeWriteTest, AnUpdateKeepsWhatTheServerOwns) {
  const KindStrategy& s = Strategy("", "configmaps");
  RequestInfo info = Info("team", "cm");
  json old = ConfigMap({{"name", "cm"},
                        {"namespace", "team"},
                        {"uid", "u-1"},
                        {"creationTimestamp", "2026-01-02T03:04:05Z"}});
  json cm = ConfigMap({{"name", "cm"}, {"uid", "forged"}, {"resourceVersion", "9"}});
  ASSERT_TRUE(BeforeUpdate(s, {info, *store_, store::kNoDeadline, clock_}, old, cm).ok());
  EXPECT_EQ(cm["metadata"]["uid"], "u-1");
  EXPECT_EQ(cm["metadata"]["creationTimestamp"], "2026-01-02T03:04:05Z");
  EXPECT_EQ(cm["metadata"]["namespace"], "team");
  EXPECT_FALSE(cm["metadata"].contains("resourceVersion"));
  json renamed = ConfigMap({{"name", "other"}});
  EXPECT_EQ(BeforeUpdate(s, {info, *store_, store::kNoDeadline, clock_}, old, renamed).message(),
            "the name of the object (other) does not match the name on the URL (cm)");
}

}  // namespace
}  // namespace tenure::server
