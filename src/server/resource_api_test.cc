// ResourceApi's update path with a store that knows versions without reading (as an etcd replica
// does from its writes and watch): the read is skipped only where that cannot change the answer.
#include "server/resource_api.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>
#include <nlohmann/json.hpp>

#include "api/kinds.h"
#include "server/request_info.h"
#include "store/forwarding_store_test_util.h"
#include "store/sqlite_store.h"
#include "store/store_test_util.h"
#include "tenure/clock.h"
#include "tenure/fake_clock.h"

namespace tenure::server {
namespace {

using nlohmann::json;

// A SqliteStore whose KnownValue answers from what the test put there (possibly stale), and
// which counts reads.
class KnowingStore : public store::test_util::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<store::KeyValue> Get(std::string_view key) override {
    ++gets;
    return ForwardingStore::Get(key);
  }
  Result<store::KeyValue> GetBefore(std::string_view key, store::Deadline deadline) override {
    {
      std::lock_guard lock(mu_);
      deadlines.push_back(deadline);
      if (key == unreadable_) return Status::Unavailable("etcd: no leader (a test's store)");
    }
    return Get(key);
  }
  // Reads of `key` fail from now on, as a store without quorum fails them.
  void MakeUnreadable(std::string key) {
    std::lock_guard lock(mu_);
    unreadable_ = std::move(key);
  }
  std::optional<store::KeyValue> KnownValue(std::string_view key, int64_t revision) override {
    std::lock_guard lock(mu_);
    auto it = known_.find(std::string(key));
    if (it == known_.end() || it->second.mod_revision != revision) return std::nullopt;
    return it->second;
  }
  void Write(store::WriteOp op, store::WriteCallback done) override {
    std::function<void()> before;
    {
      std::lock_guard lock(mu_);
      deadlines.push_back(op.deadline);
      if (op.kind == store::WriteOp::Kind::kUpdate) std::swap(before, before_next_update);
    }
    if (before) before();
    ForwardingStore::Write(std::move(op), std::move(done));
  }
  // Runs once, right before the next update reaches the store: another client's write between
  // the server's read and its write.
  std::function<void()> before_next_update;
  // The deadline of every GetBefore and Write, in order.
  std::vector<store::Deadline> Deadlines() {
    std::lock_guard lock(mu_);
    return deadlines;
  }
  void Know(const store::KeyValue& kv) {
    std::lock_guard lock(mu_);
    known_[kv.key] = kv;
  }
  std::atomic<int> gets{0};

 private:
  std::vector<store::Deadline> deadlines;
  std::string unreadable_;
  std::mutex mu_;
  std::map<std::string, store::KeyValue> known_;
};

class CapturingResponder : public Responder {
 public:
  void Reply(HttpResponse response) override { reply_.set_value(std::move(response)); }
  std::shared_ptr<ResponseStream> Stream(int, std::string, std::chrono::steady_clock::time_point,
                                         std::chrono::milliseconds,
                                         std::function<void()>) override {
    return nullptr;
  }
  HttpResponse Wait() {
    auto future = reply_.get_future();
    EXPECT_EQ(future.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    return future.get();
  }

 private:
  std::promise<HttpResponse> reply_;
};

constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
constexpr const char* kKey = "/registry/leases/default/known";

class ResourceApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    auto opened = store::test_util::OpenWithDefaultNamespace<KnowingStore>(dir_.File("db"));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    api_ = std::make_unique<ResourceApi>(store_, Clock::Real());
    HttpResponse created = Send("POST", kLeases, Lease("a", ""));
    ASSERT_EQ(created.status, 201) << created.body;
    first_rv_ = json::parse(created.body)["metadata"]["resourceVersion"].get<std::string>();
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
  }

  static std::string Lease(const std::string& holder, const std::string& rv) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", "known"}, {"namespace", "default"}}},
                  {"spec", {{"holderIdentity", holder}, {"leaseDurationSeconds", 15}}}};
    if (!rv.empty()) lease["metadata"]["resourceVersion"] = rv;
    return lease.dump();
  }
  HttpResponse Send(const std::string& method, const std::string& path, const std::string& body,
                    std::multimap<std::string, std::string> query = {}) {
    HttpRequest request;
    request.method = method;
    request.target = path;
    request.path = path;
    request.query = std::move(query);
    request.headers = {{"content-type", "application/json"}, {"accept", "application/json"}};
    request.body = body;
    RequestInfo info = ParseRequestInfo(request);
    const api::KindInfo* kind = api::FindByResource(info.group, info.resource);
    EXPECT_NE(kind, nullptr);
    auto responder = std::make_shared<CapturingResponder>();
    api_->Handle(info, *kind, std::move(request), responder);
    return responder->Wait();
  }
  store::KeyValue Stored() {
    auto kv = store_->Get(kKey);
    EXPECT_TRUE(kv.ok());
    return kv.ok() ? *kv : store::KeyValue{};
  }
  // Another replica's write: the lease moves on to `holder` while this store still knows only
  // the first version.
  void WriteUnseen(const std::string& holder) {
    store::KeyValue first = Stored();
    ASSERT_EQ(first.mod_revision, std::stoll(first_rv_));
    HttpResponse moved = Send("PUT", std::string(kLeases) + "/known", Lease(holder, first_rv_));
    ASSERT_EQ(moved.status, 200) << moved.body;
    store_->Know(first);
  }
  static std::string Rv(const HttpResponse& r) {
    return json::parse(r.body)["metadata"]["resourceVersion"].get<std::string>();
  }

  store::test_util::TempDir dir_;  // destroyed last
  std::shared_ptr<KnowingStore> store_;
  std::unique_ptr<ResourceApi> api_;
  std::string first_rv_;
};

// Found by reading the code after an etcd member's death made a CI test wait: the namespace
// admission answered any failure to read the namespace as 404 "namespaces not found", so a
// create while the store was out of reach was told its namespace did not exist. kube-apiserver's
// NamespaceLifecycle says NotFound only for NotFound; a store error is the store's answer.
TEST_F(ResourceApiTest, AStoreErrorReadingTheNamespaceIsNotAMissingNamespace) {
  store_->MakeUnreadable("/registry/namespaces/default");
  json lease = json::parse(Lease("b", ""));
  lease["metadata"]["name"] = "another";
  HttpResponse r = Send("POST", kLeases, lease.dump());
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_EQ(r.body.find("not found"), std::string::npos) << r.body;
}

TEST_F(ResourceApiTest, AnUpdateNamingAKnownVersionDoesNotRead) {
  store_->Know(Stored());
  int gets = store_->gets;
  HttpResponse r = Send("PUT", std::string(kLeases) + "/known", Lease("b", first_rv_));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(store_->gets - gets, 0);
  EXPECT_GT(std::stoll(Rv(r)), std::stoll(first_rv_));
  EXPECT_EQ(json::parse(r.body)["spec"]["holderIdentity"], "b");
  // The server-owned fields came from the known version.
  EXPECT_EQ(json::parse(r.body)["metadata"]["uid"], json::parse(Stored().value)["metadata"]["uid"]);
}

TEST_F(ResourceApiTest, AKnownVersionThatIsNoLongerCurrentStillConflicts) {
  ASSERT_NO_FATAL_FAILURE(WriteUnseen("other"));
  HttpResponse stale = Send("PUT", std::string(kLeases) + "/known", Lease("b", first_rv_));
  EXPECT_EQ(stale.status, 409) << stale.body;
  EXPECT_EQ(json::parse(Stored().value)["spec"]["holderIdentity"], "other");
}

TEST_F(ResourceApiTest, ANoOpOnAKnownVersionIsConfirmedByARead) {
  store::KeyValue first = Stored();
  store_->Know(first);
  int gets = store_->gets;
  // Same content: answered without a write, keeping the resourceVersion, after one read.
  HttpResponse same = Send("PUT", std::string(kLeases) + "/known", Lease("a", first_rv_));
  ASSERT_EQ(same.status, 200) << same.body;
  EXPECT_EQ(Rv(same), first_rv_);
  EXPECT_EQ(store_->gets - gets, 1);
  // The same no-op after another write the known version does not show: a conflict, not 200.
  ASSERT_NO_FATAL_FAILURE(WriteUnseen("other"));
  HttpResponse stale = Send("PUT", std::string(kLeases) + "/known", Lease("a", first_rv_));
  EXPECT_EQ(stale.status, 409) << stale.body;
  EXPECT_EQ(json::parse(Stored().value)["spec"]["holderIdentity"], "other");
}

TEST_F(ResourceApiTest, AKnownVersionOfAnObjectDeletedSinceBehavesAsARead) {
  store_->Know(Stored());
  ASSERT_TRUE(store_->WriteSync({store::WriteOp::Kind::kDelete, kKey, "", 0}).ok());
  // Leases are created by an update when missing, as kube-apiserver does: the write on the
  // known version finds nothing, and the update is done again from a read.
  HttpResponse r = Send("PUT", std::string(kLeases) + "/known", Lease("b", first_rv_));
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json::parse(Stored().value)["spec"]["holderIdentity"], "b");
}

TEST_F(ResourceApiTest, AValidationErrorAgainstAKnownVersionIsDecidedFromARead) {
  const std::string candidates =
      "/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates";
  auto candidate = [](const std::string& lease_name, const std::string& rv) {
    json c = {{"apiVersion", "coordination.k8s.io/v1beta1"},
              {"kind", "LeaseCandidate"},
              {"metadata", {{"name", "c"}, {"namespace", "default"}}},
              {"spec",
               {{"leaseName", lease_name},
                {"binaryVersion", "1.33.0"},
                {"emulationVersion", "1.33.0"},
                {"strategy", "OldestEmulationVersion"}}}};
    if (!rv.empty()) c["metadata"]["resourceVersion"] = rv;
    return c.dump();
  };
  HttpResponse created = Send("POST", candidates, candidate("l1", ""));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string key = "/registry/leasecandidates/default/c";
  auto stored = store_->Get(key);
  ASSERT_TRUE(stored.ok());
  store_->Know(*stored);
  // Deleted by another replica; this one has not seen it. Against the known version the new
  // leaseName is an immutable field changed (422); a read finds nothing, so the update creates.
  ASSERT_TRUE(store_->WriteSync({store::WriteOp::Kind::kDelete, key, "", 0}).ok());
  HttpResponse r = Send("PUT", candidates + "/c", candidate("l2", Rv(created)));
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json::parse(store_->Get(key)->value)["spec"]["leaseName"], "l2");
}

// An unconditional update (a ConfigMap PUT without a resourceVersion) raced by a delete and a
// re-create between the server's read and its write: written unconditionally, it put the old
// object's uid and creationTimestamp onto the new object. Now it is written on the version it was
// prepared from, and redone on the newer object after the conflict, as kube-apiserver does.
TEST_F(ResourceApiTest, AnUnconditionalUpdateIsRedoneOnTheObjectThatReplacedTheOneItRead) {
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  const std::string key = "/registry/configmaps/default/cm";
  auto configmap = [](const std::string& value) {
    return json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata", {{"name", "cm"}, {"namespace", "default"}}},
                {"data", {{"k", value}}}};
  };
  HttpResponse created = Send("POST", configmaps, configmap("first").dump());
  ASSERT_EQ(created.status, 201) << created.body;
  json recreated = configmap("recreated");
  recreated["metadata"]["uid"] = "00000000-0000-0000-0000-00000000000b";
  recreated["metadata"]["creationTimestamp"] = "2026-12-02T10:00:00Z";
  store_->before_next_update = [&] {
    ASSERT_TRUE(store_->inner().WriteSync({store::WriteOp::Kind::kDelete, key, "", 0}).ok());
    ASSERT_TRUE(
        store_->inner().WriteSync({store::WriteOp::Kind::kCreate, key, recreated.dump(), 0}).ok());
  };
  HttpResponse updated = Send("PUT", configmaps + "/cm", configmap("updated").dump());
  ASSERT_EQ(updated.status, 200) << updated.body;
  auto stored = store_->Get(key);
  ASSERT_TRUE(stored.ok());
  json object = json::parse(stored->value);
  EXPECT_EQ(object["data"]["k"], "updated");
  EXPECT_EQ(object["metadata"]["uid"], recreated["metadata"]["uid"]);
  EXPECT_EQ(object["metadata"]["creationTimestamp"], recreated["metadata"]["creationTimestamp"]);
  EXPECT_EQ(json::parse(updated.body)["metadata"]["uid"], recreated["metadata"]["uid"]);
}

// A client's `?timeout=` becomes the deadline of the request's store operations (a replica on
// etcd then gives up in time and shares it among members); without one there is none, 0 means
// none, and a value Go cannot parse is refused as kube-apiserver refuses it.
TEST_F(ResourceApiTest, TheClientsTimeoutIsTheDeadlineOfTheStoreOperations) {
  const std::string lease = std::string(kLeases) + "/known";
  const size_t setup = store_->Deadlines().size();
  auto before = std::chrono::steady_clock::now();
  HttpResponse r = Send("PUT", lease, Lease("b", first_rv_), {{"timeout", "1500ms"}});
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<store::Deadline> deadlines = store_->Deadlines();
  deadlines.erase(deadlines.begin(), deadlines.begin() + static_cast<ptrdiff_t>(setup));
  ASSERT_EQ(deadlines.size(), 2u);  // the read, the write
  for (store::Deadline d : deadlines) {
    EXPECT_GE(d, before + std::chrono::milliseconds(1500));
    EXPECT_LE(d, std::chrono::steady_clock::now() + std::chrono::milliseconds(1500));
  }
  // None: 0, an empty value, none at all, and one longer than any server waits (it would not
  // fit in a time point: 2562047h is about the most nanoseconds an int64 holds).
  for (const char* none : std::initializer_list<const char*>{"0s", "", nullptr, "2562047h"}) {
    std::multimap<std::string, std::string> query;
    if (none != nullptr) query.emplace("timeout", none);
    ASSERT_EQ(Send("GET", lease, "", query).status, 200) << (none ? none : "(none)");
  }
  deadlines = store_->Deadlines();
  deadlines.erase(deadlines.begin(), deadlines.begin() + static_cast<ptrdiff_t>(setup));
  ASSERT_EQ(deadlines.size(), 6u);
  for (size_t i = 2; i < 6; ++i) EXPECT_EQ(deadlines[i], store::kNoDeadline) << i;

  HttpResponse bad = Send("GET", lease, "", {{"timeout", "5"}});
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(json::parse(bad.body)["message"],
            "invalid timeout specified in the request URL: time: missing unit in duration \"5\"");
}

// kube-apiserver's watch cache waits up to 3 s for a resourceVersion it has not reached; the
// server answered 504 at once. With an injected clock: a list NotOlderThan the next revision
// answers once a write makes it, and one of a revision that does not come answers 504 with
// Retry-After after 3 s.
TEST_F(ResourceApiTest, AListOfAVersionNotReachedWaitsForItUpToThreeSeconds) {
  auto clock = std::make_shared<FakeClock>();
  api_ = std::make_unique<ResourceApi>(store_, clock);
  auto list = [&](int64_t rv) {
    HttpRequest request;
    request.method = "GET";
    request.target = request.path = kLeases;
    request.query = {{"resourceVersion", std::to_string(rv)},
                     {"resourceVersionMatch", "NotOlderThan"}};
    request.headers = {{"accept", "application/json"}};
    RequestInfo info = ParseRequestInfo(request);
    auto responder = std::make_shared<CapturingResponder>();
    api_->Handle(info, api::LeaseKind(), std::move(request), responder);
    return responder;
  };
  const int64_t current = store_->CurrentRevision();
  auto next = list(current + 1);
  ASSERT_TRUE(clock->WaitForSleepers(1, std::chrono::seconds(10)));  // waiting, not answered
  ASSERT_TRUE(store_
                  ->WriteSync({store::WriteOp::Kind::kCreate, "/registry/leases/default/other",
                               Lease("b", ""), 0})
                  .ok());
  clock->Advance(std::chrono::milliseconds(20));
  HttpResponse reached = next->Wait();
  EXPECT_EQ(reached.status, 200) << reached.body;
  EXPECT_EQ(json::parse(reached.body)["items"].size(), 2u);

  auto never = list(current + 100);
  ASSERT_TRUE(clock->WaitForSleepers(1, std::chrono::seconds(10)));
  clock->Advance(std::chrono::milliseconds(2990));
  ASSERT_TRUE(clock->WaitForSleepers(1, std::chrono::seconds(10)));  // still waiting
  clock->Advance(std::chrono::milliseconds(20));
  HttpResponse too_large = never->Wait();
  EXPECT_EQ(too_large.status, 504);
  json status = json::parse(too_large.body);
  EXPECT_EQ(status["message"],
            "Timeout: Too large resource version: " + std::to_string(current + 100) +
                ", current: " + std::to_string(current + 1));
  EXPECT_EQ(status["details"]["retryAfterSeconds"], 1);
  bool retry_after = false;
  for (const auto& [name, value] : too_large.headers) {
    if (name == "Retry-After") retry_after = value == "1";
  }
  EXPECT_TRUE(retry_after);
}

}  // namespace
}  // namespace tenure::server
