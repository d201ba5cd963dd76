// StartWatch with a selector: objects entering and leaving the selection, live and replayed.
#include "server/watch_session.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "api/kinds.h"
#include "store/forwarding_store_test_util.h"
#include "store/store_test_util.h"

namespace tenure::server {
namespace {

using nlohmann::json;

constexpr const char* kPrefix = "/registry/leases/default/";

// A stream that keeps what is written to it, line by line.
class CapturedStream : public ResponseStream {
 public:
  bool Write(std::string chunk, bool) override {
    std::lock_guard lock(mu_);
    if (closed_) return false;
    lines_.push_back(std::move(chunk));
    cv_.notify_all();
    return true;
  }
  bool overflowed() const override { return false; }
  void Close(std::string last) override {
    std::function<void()> on_close;
    {
      std::lock_guard lock(mu_);
      if (closed_) return;
      if (!last.empty()) lines_.push_back(std::move(last));
      closed_ = true;
      on_close = std::move(on_close_);
      cv_.notify_all();
    }
    if (on_close) on_close();
  }
  bool closed() const override {
    std::lock_guard lock(mu_);
    return closed_;
  }
  void OnClose(std::function<void()> on_close) override {
    std::lock_guard lock(mu_);
    on_close_ = std::move(on_close);
  }

  // The first `n` events written, parsed; fewer when they do not come within 10 s.
  std::vector<json> WaitForEvents(size_t n) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return lines_.size() >= n || closed_; });
    std::vector<json> events;
    for (size_t i = 0; i < lines_.size() && i < n; ++i) events.push_back(json::parse(lines_[i]));
    return events;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
  bool closed_ = false;
  std::function<void()> on_close_;
};

class StreamResponder : public Responder {
 public:
  void Reply(HttpResponse response) override { ADD_FAILURE() << "a reply: " << response.body; }
  std::shared_ptr<ResponseStream> Stream(int, std::string, std::chrono::steady_clock::time_point,
                                         std::chrono::milliseconds,
                                         std::function<void()>) override {
    return stream;
  }
  std::shared_ptr<CapturedStream> stream = std::make_shared<CapturedStream>();
};

// A SQLite store whose watches lose the value each update replaced and each deleted object, as
// an etcd watch does for a write whose previous revision etcd compacted away.
class ForgetfulStore : public store::test_util::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<std::unique_ptr<store::WatchHandle>> Watch(std::string_view prefix, int64_t from,
                                                    store::EventCallback on_events) override {
    return ForwardingStore::Watch(prefix, from,
                                  [on_events](const std::vector<store::Event>& events) {
                                    std::vector<store::Event> forgotten = events;
                                    for (store::Event& e : forgotten) {
                                      e.previous = nullptr;
                                      if (e.type == store::Event::Type::kDeleted)
                                        e.kv.value.clear();
                                    }
                                    on_events(forgotten);
                                  });
  }
};

std::string Lease(const std::string& team, const std::string& holder,
                  const std::string& name = "l") {
  return json{
      {"apiVersion", "coordination.k8s.io/v1"},
      {"kind", "Lease"},
      {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"team", team}}}}},
      {"spec", {{"holderIdentity", holder}}}}
      .dump();
}

class WatchSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dir_.ok()); }
  // A stream's close callback holds its session, which holds the stream: closing breaks that
  // cycle, as the server closes every stream at its end.
  void TearDown() override {
    for (auto& stream : streams_) stream->Close("");
  }

  template <typename StoreType>
  std::shared_ptr<StoreType> Open() {
    auto opened = store::test_util::OpenWithDefaultNamespace<StoreType>(dir_.File("db"));
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? *opened : nullptr;
  }

  // A watch of the default namespace's Leases labelled team=a, from `from`.
  std::shared_ptr<CapturedStream> WatchTeamA(std::shared_ptr<store::Store> store, int64_t from) {
    return WatchTeam(std::move(store), from, "a");
  }
  std::shared_ptr<CapturedStream> WatchTeam(std::shared_ptr<store::Store> store, int64_t from,
                                            const std::string& team) {
    return WatchSelected(std::move(store), from, "labelSelector", "team=" + team);
  }
  // A watch of the default namespace's Leases with the selector `param`=`selector`.
  std::shared_ptr<CapturedStream> WatchSelected(std::shared_ptr<store::Store> store, int64_t from,
                                                const std::string& param,
                                                const std::string& selector) {
    const api::KindInfo* kind = api::FindByResource("coordination.k8s.io", "leases");
    EXPECT_NE(kind, nullptr);
    HttpRequest request;
    request.query = {{param, selector}};
    auto filter = ObjectFilter::FromRequest(*kind, request);
    EXPECT_TRUE(filter.ok()) << filter.status().ToString();
    WatchOptions options;
    options.kind = kind;
    options.version = "v1";
    options.prefix = kPrefix;
    options.filter = *filter;
    options.from_revision = from;
    auto responder = std::make_shared<StreamResponder>();
    StartWatch(std::move(store), Clock::Real(), std::move(options), responder);
    streams_.push_back(responder->stream);
    return responder->stream;
  }

  // A ForgetfulStore holding the Lease "l" of team a, and the revision that created it.
  std::pair<std::shared_ptr<ForgetfulStore>, int64_t> ForgetfulWithLease() {
    auto store = Open<ForgetfulStore>();
    if (store == nullptr) return {nullptr, 0};
    const int64_t created =
        Write(*store, {store::WriteOp::Kind::kCreate, std::string(kPrefix) + "l", Lease("a", "x")});
    return {store, created};
  }

  static int64_t Write(store::Store& store, store::WriteOp op) {
    auto written = store.WriteSync(std::move(op));
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    return written.ok() ? written->mod_revision : 0;
  }

  store::test_util::TempDir dir_;
  std::vector<std::shared_ptr<CapturedStream>> streams_;
};

// What the writes below must show to a watch of team=a: type, team label, holder, revision.
struct Expected {
  std::string type;
  std::string team;
  std::string holder;
  int64_t revision;
};

// The last expected event is the last write's: an event sent wrongly would come before it.
void ExpectEvents(CapturedStream& stream, const std::vector<Expected>& expected) {
  std::vector<json> events = stream.WaitForEvents(expected.size());
  ASSERT_EQ(events.size(), expected.size()) << (events.empty() ? "" : events.back().dump());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    const json& object = events[i]["object"];
    EXPECT_EQ(events[i]["type"], expected[i].type);
    EXPECT_EQ(object["metadata"]["labels"]["team"], expected[i].team);
    EXPECT_EQ(object["spec"]["holderIdentity"], expected[i].holder);
    EXPECT_EQ(object["metadata"]["resourceVersion"], std::to_string(expected[i].revision));
  }
}

// The object first, then a 410 ERROR that ended the watch.
void ExpectAddedThenGone(CapturedStream& stream) {
  std::vector<json> events = stream.WaitForEvents(3);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[1]["type"], "ERROR");
  EXPECT_EQ(events[1]["object"]["code"], 410);
  EXPECT_TRUE(stream.closed());
}

TEST_F(WatchSessionTest, AnObjectEnteringTheSelectionIsAddedAndOneLeavingItDeleted) {
  auto store = Open<store::test_util::ForwardingStore>();
  ASSERT_NE(store, nullptr);
  const int64_t start = store->CurrentRevision();
  auto live = WatchTeamA(store, start);
  const std::string key = std::string(kPrefix) + "l";
  using Kind = store::WriteOp::Kind;
  Write(*store, {Kind::kCreate, key, Lease("b", "x")});  // outside: nothing
  const int64_t enters = Write(*store, {Kind::kUpdate, key, Lease("a", "x")});
  const int64_t stays = Write(*store, {Kind::kUpdate, key, Lease("a", "y")});
  const int64_t leaves = Write(*store, {Kind::kUpdate, key, Lease("b", "z")});
  Write(*store, {Kind::kUpdate, key, Lease("b", "w")});  // outside: nothing
  const int64_t again = Write(*store, {Kind::kUpdate, key, Lease("a", "v")});
  const int64_t deleted = Write(*store, {Kind::kDelete, key, ""});
  Write(*store, {Kind::kCreate, key, Lease("b", "u")});  // outside: nothing
  const int64_t last = Write(*store, {Kind::kCreate, key + "2", Lease("a", "t", "l2")});
  // Leaving the selection: the object as it was, at the revision that moved it out.
  const std::vector<Expected> expected = {
      {"ADDED", "a", "x", enters}, {"MODIFIED", "a", "y", stays},  {"DELETED", "a", "y", leaves},
      {"ADDED", "a", "v", again},  {"DELETED", "a", "v", deleted}, {"ADDED", "a", "t", last}};
  {
    SCOPED_TRACE("live");
    ExpectEvents(*live, expected);
  }
  {
    SCOPED_TRACE("replayed from the history");
    ExpectEvents(*WatchTeamA(store, start), expected);
  }
}

// The watches of one store share one read of each value's labels (ObjectHeadCache): each still
// decides with its own selector.
TEST_F(WatchSessionTest, WatchesWithOtherSelectorsOnOneStoreEachSeeTheirOwnTransitions) {
  auto store = Open<store::test_util::ForwardingStore>();
  ASSERT_NE(store, nullptr);
  const int64_t start = store->CurrentRevision();
  auto team_a = WatchTeam(store, start, "a");
  auto team_b = WatchTeam(store, start, "b");
  const std::string key = std::string(kPrefix) + "l";
  using Kind = store::WriteOp::Kind;
  const int64_t created = Write(*store, {Kind::kCreate, key, Lease("b", "x")});
  const int64_t to_a = Write(*store, {Kind::kUpdate, key, Lease("a", "y")});
  const int64_t to_b = Write(*store, {Kind::kUpdate, key, Lease("b", "z")});
  const int64_t deleted = Write(*store, {Kind::kDelete, key, ""});
  const int64_t last_a = Write(*store, {Kind::kCreate, key + "a", Lease("a", "t", "la")});
  const int64_t last_b = Write(*store, {Kind::kCreate, key + "b", Lease("b", "t", "lb")});
  {
    SCOPED_TRACE("team=a");
    ExpectEvents(
        *team_a,
        {{"ADDED", "a", "y", to_a}, {"DELETED", "a", "y", to_b}, {"ADDED", "a", "t", last_a}});
  }
  {
    SCOPED_TRACE("team=b");
    ExpectEvents(*team_b, {{"ADDED", "b", "x", created},
                           {"DELETED", "b", "x", to_a},
                           {"ADDED", "b", "z", to_b},
                           {"DELETED", "b", "z", deleted},
                           {"ADDED", "b", "t", last_b}});
  }
}

TEST_F(WatchSessionTest, AnUpdateWhosePreviousValueIsUnknownEndsASelectorsWatchWithGone) {
  auto [store, created] = ForgetfulWithLease();
  ASSERT_NE(store, nullptr);
  const std::string key = std::string(kPrefix) + "l";
  using Kind = store::WriteOp::Kind;
  auto stream = WatchTeamA(store, created - 1);
  // A selector of the name alone needs no previous value: no update changes the name.
  auto by_name = WatchSelected(store, created - 1, "fieldSelector", "metadata.name=l");
  const int64_t updated = Write(*store, {Kind::kUpdate, key, Lease("b", "y")});
  ExpectAddedThenGone(*stream);
  ExpectEvents(*by_name, {{"ADDED", "a", "x", created}, {"MODIFIED", "b", "y", updated}});
  EXPECT_FALSE(by_name->closed());
}

TEST_F(WatchSessionTest, ADeletionWhoseObjectIsUnknownEndsTheWatchWithGone) {
  auto [store, created] = ForgetfulWithLease();
  ASSERT_NE(store, nullptr);
  auto everything = WatchSelected(store, created - 1, "labelSelector", "");
  Write(*store, {store::WriteOp::Kind::kDelete, std::string(kPrefix) + "l", ""});
  ExpectAddedThenGone(*everything);
}

}  // namespace
}  // namespace tenure::server
