// LocalCollectionWatch on a SQLite store: the first state, then the store's changes as a
// collection watch delivers them, objects as served; and the start over after a lost deletion,
// also when the store cannot list at first.
#include "server/local_collection_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "store/forwarding_store_test_util.h"
#include "store/store_test_util.h"
#include "tenure/testing/waits.h"

namespace tenure::server {
namespace {

using nlohmann::json;
using store::WriteOp;

// Passes every event on, except that the next deletion (when asked) arrives without its value,
// as from an etcd that compacted it away; lists fail while `fail_lists` is set.
class LossyStore : public store::test_util::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<store::ListResult> List(std::string_view prefix,
                                 const store::ListOptions& options) override {
    if (fail_lists) return Status::Unavailable("lists fail in this test");
    return ForwardingStore::List(prefix, options);
  }
  Result<std::unique_ptr<store::WatchHandle>> Watch(std::string_view prefix, int64_t from,
                                                    store::EventCallback on_events) override {
    return ForwardingStore::Watch(
        prefix, from, [this, on_events](const std::vector<store::Event>& events) {
          std::vector<store::Event> delivered = events;
          for (store::Event& e : delivered) {
            if (e.type == store::Event::Type::kDeleted && lose_next_deletion.exchange(false)) {
              e.kv.value.clear();
            }
          }
          on_events(delivered);
        });
  }
  std::atomic<bool> fail_lists{false};
  std::atomic<bool> lose_next_deletion{false};
};

struct Seen {
  std::string type;
  std::string name;
  std::string resource_version;
};

class LocalCollectionWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::test_util::OpenWithDefaultNamespace<LossyStore>(dir_.File("db"));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = *opened;
  }
  void TearDown() override {
    watch_.reset();
    store_->Close();
  }
  static std::string Key(const std::string& name) { return "/registry/leases/default/" + name; }
  // A Lease as the server stores it: no resourceVersion, managedFields recorded.
  static std::string Stored(const std::string& name, const std::string& holder) {
    return json{{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata",
                 {{"name", name},
                  {"namespace", "default"},
                  {"managedFields",
                   {{{"manager", "m"}, {"operation", "Update"}, {"fieldsType", "FieldsV1"}}}}}},
                {"spec", {{"holderIdentity", holder}}}}
        .dump();
  }
  int64_t Write(WriteOp::Kind kind, const std::string& name, const std::string& holder,
                int64_t expected = 0) {
    auto written = store_->WriteSync(
        {kind, Key(name), kind == WriteOp::Kind::kDelete ? "" : Stored(name, holder), expected});
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    return written.ok() ? written->mod_revision : 0;
  }
  void Start(LocalCollectionWatch::Options options = {
                 .list_again_after = std::chrono::milliseconds(10)}) {
    auto started = LocalCollectionWatch::Start(
        store_, api::LeaseKind(), "v1",
        [this](const std::string& type, const json& object) {
          if (type == hold_type_ && holding_) {
            held_ = true;
            std::lock_guard wait(gate_);
          }
          std::lock_guard lock(mu_);
          if (object.contains("metadata")) {
            const json& meta = object["metadata"];
            EXPECT_FALSE(meta.contains("managedFields")) << object.dump();
            EXPECT_EQ(object["apiVersion"], "coordination.k8s.io/v1");
            seen_.push_back({type, meta["name"], meta["resourceVersion"]});
          } else {
            seen_.push_back({type, "", ""});
          }
        },
        options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    watch_ = std::move(*started);
  }
  // The types and names seen so far, once there are `count`, as "TYPE name" lines.
  std::vector<std::string> WaitFor(size_t count) {
    EXPECT_TRUE(testing::Eventually([&] {
      std::lock_guard lock(mu_);
      return seen_.size() >= count;
    })) << "only "
        << seen_.size() << " of " << count;
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const Seen& s : seen_) out.push_back(s.type + (s.name.empty() ? "" : " " + s.name));
    return out;
  }

  store::test_util::TempDir dir_;
  std::shared_ptr<LossyStore> store_;
  std::unique_ptr<LocalCollectionWatch> watch_;
  std::mutex mu_;
  std::vector<Seen> seen_;
  // While holding_, the handler waits on gate_ with an event of type hold_type_ (held_ then).
  std::mutex gate_;
  std::string hold_type_;
  std::atomic<bool> holding_{false};
  std::atomic<bool> held_{false};
};

TEST_F(LocalCollectionWatchTest, TheFirstStateThenEveryChangeAsServed) {
  const int64_t a = Write(WriteOp::Kind::kCreate, "a", "x");
  Write(WriteOp::Kind::kCreate, "b", "x");
  Start();
  EXPECT_EQ(WaitFor(3), (std::vector<std::string>{"MODIFIED a", "MODIFIED b", "SYNCED"}));
  {
    std::lock_guard lock(mu_);
    EXPECT_EQ(seen_[0].resource_version, std::to_string(a));
  }
  const int64_t renewed = Write(WriteOp::Kind::kUpdate, "a", "y", a);
  Write(WriteOp::Kind::kCreate, "c", "x");
  Write(WriteOp::Kind::kDelete, "c", "");
  EXPECT_EQ(WaitFor(6), (std::vector<std::string>{"MODIFIED a", "MODIFIED b", "SYNCED",
                                                  "MODIFIED a", "ADDED c", "DELETED c"}));
  std::lock_guard lock(mu_);
  EXPECT_EQ(seen_[3].resource_version, std::to_string(renewed));
  EXPECT_TRUE(watch_->active());
}

// A deletion the store can no longer tell (empty value): the watch starts over with RESET and the
// objects that exist; while the store cannot list, it says it is not active and tries again.
TEST_F(LocalCollectionWatchTest, ALostDeletionStartsItOverOnceTheStoreCanList) {
  Write(WriteOp::Kind::kCreate, "a", "x");
  Write(WriteOp::Kind::kCreate, "b", "x");
  Start();
  WaitFor(3);
  store_->fail_lists = true;
  store_->lose_next_deletion = true;
  Write(WriteOp::Kind::kDelete, "b", "");
  EXPECT_TRUE(testing::Eventually([&] { return !watch_->active(); }));
  store_->fail_lists = false;
  EXPECT_TRUE(testing::Eventually([&] { return watch_->active(); }));
  EXPECT_EQ(WaitFor(6), (std::vector<std::string>{"MODIFIED a", "MODIFIED b", "SYNCED", "RESET",
                                                  "MODIFIED a", "SYNCED"}));
  // It goes on from the new listing.
  Write(WriteOp::Kind::kCreate, "c", "x");
  EXPECT_EQ(WaitFor(7).back(), "ADDED c");
}

// The handler runs on the watch's own thread: a handler that takes its time does not hold up the
// store's other watchers.
// A handler that falls more than max_queued events behind: they are dropped and the state is
// listed again, so the watch holds a bounded number of events whatever the handler does.
TEST_F(LocalCollectionWatchTest, AHandlerTooFarBehindGetsTheStateListedAgain) {
  const int64_t a = Write(WriteOp::Kind::kCreate, "a", "x");
  std::unique_lock closed(gate_);
  hold_type_ = "ADDED";
  holding_ = true;
  Start({.max_queued = 3});
  WaitFor(2);
  Write(WriteOp::Kind::kCreate, "b", "x");
  EXPECT_TRUE(testing::Eventually([&] { return held_.load(); })) << "the handler waits on b";
  int64_t rv = a;
  for (int i = 0; i < 5; ++i) rv = Write(WriteOp::Kind::kUpdate, "a", "y" + std::to_string(i), rv);
  EXPECT_TRUE(testing::Eventually([&] { return watch_->start_overs() == 1; }));
  holding_ = false;
  closed.unlock();
  EXPECT_EQ(WaitFor(7), (std::vector<std::string>{"MODIFIED a", "SYNCED", "ADDED b", "RESET",
                                                  "MODIFIED a", "MODIFIED b", "SYNCED"}));
  std::lock_guard lock(mu_);
  EXPECT_EQ(seen_[4].resource_version, std::to_string(rv)) << "a as it is now";
}

// What changes while the state is being listed again follows the listing: nothing is lost.
TEST_F(LocalCollectionWatchTest, ChangesDuringAStartOverFollowIt) {
  Write(WriteOp::Kind::kCreate, "a", "x");
  Write(WriteOp::Kind::kCreate, "b", "x");
  std::unique_lock closed(gate_);
  hold_type_ = "RESET";
  holding_ = true;
  Start();
  WaitFor(3);
  store_->lose_next_deletion = true;
  Write(WriteOp::Kind::kDelete, "b", "");
  EXPECT_TRUE(testing::Eventually([&] { return held_.load(); })) << "listed, delivering RESET";
  Write(WriteOp::Kind::kCreate, "d", "x");
  holding_ = false;
  closed.unlock();
  EXPECT_EQ(WaitFor(7), (std::vector<std::string>{"MODIFIED a", "MODIFIED b", "SYNCED", "RESET",
                                                  "MODIFIED a", "SYNCED", "ADDED d"}));
}

TEST_F(LocalCollectionWatchTest, ASlowHandlerDoesNotHoldUpTheStoresOtherWatchers) {
  Write(WriteOp::Kind::kCreate, "a", "x");
  std::mutex gate;
  std::unique_lock closed(gate);
  std::atomic<int> handled{0};
  auto slow = LocalCollectionWatch::Start(store_, api::LeaseKind(), "v1",
                                          [&](const std::string& type, const json&) {
                                            if (type == "ADDED") std::lock_guard wait(gate);
                                            ++handled;
                                          });
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  std::atomic<int> other{0};
  auto watched = store_->Watch(
      "/registry/leases/", 0,
      [&](const std::vector<store::Event>& events) { other += static_cast<int>(events.size()); });
  ASSERT_TRUE(watched.ok());
  Write(WriteOp::Kind::kCreate, "b", "x");  // the slow handler waits on it
  Write(WriteOp::Kind::kCreate, "c", "x");
  EXPECT_TRUE(testing::Eventually([&] { return other.load() == 2; }));
  EXPECT_EQ(handled.load(), 2) << "the first state, then waiting on b";
  closed.unlock();
  EXPECT_TRUE(testing::Eventually([&] { return handled.load() == 4; }));
}

}  // namespace
}  // namespace tenure::server
