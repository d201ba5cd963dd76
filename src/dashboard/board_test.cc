// Board without a cluster: leases fed as a watch delivers them, time moved by a FakeClock. The
// states that change with time alone, the overview's window, candidates moving between Leases,
// and the replicas counted from identity Leases.
#include "dashboard/board.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "api/time.h"
#include "tenure/fake_clock.h"

namespace tenure::dashboard {
namespace {

using nlohmann::json;

class BoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BoardOptions options;
    options.clock = clock_;
    auto board = Board::Detached(options);
    ASSERT_TRUE(board.ok()) << board.status().ToString();
    board_ = std::move(*board);
  }
  std::string Now(int offset_seconds = 0) const {
    return api::FormatMicroTime(clock_->wall_now() + std::chrono::seconds(offset_seconds));
  }
  static json Lease(const std::string& ns, const std::string& name, const std::string& holder,
                    const std::string& renewed, int duration = 15, json labels = json::object()) {
    return {{"metadata",
             {{"namespace", ns}, {"name", name}, {"resourceVersion", "1"}, {"labels", labels}}},
            {"spec",
             {{"holderIdentity", holder},
              {"leaseDurationSeconds", duration},
              {"acquireTime", renewed},
              {"renewTime", renewed}}}};
  }
  json Row(const std::string& ns, const std::string& name) {
    auto delta = board_->Overview({}, 0);
    for (const json& row : delta.document["rows"]) {
      if (row["namespace"] == ns && row["name"] == name) return row;
    }
    return nullptr;
  }

  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::unique_ptr<Board> board_;
};

TEST_F(BoardTest, TimeAloneMovesAHeldLeaseToExpiringThenExpiredAndEndsItsTerm) {
  board_->ApplyLease("ADDED", Lease("ns", "l", "a", Now()));
  EXPECT_EQ(Row("ns", "l")["state"], "held");
  const uint64_t before = board_->version();
  clock_->Advance(std::chrono::seconds(9));
  board_->Tick();
  EXPECT_EQ(board_->version(), before) << "nothing changed yet";
  clock_->Advance(std::chrono::seconds(1));  // 5 s of 15 left
  board_->Tick();
  EXPECT_EQ(Row("ns", "l")["state"], "expiring");
  EXPECT_GT(board_->version(), before);
  clock_->Advance(std::chrono::seconds(5));
  board_->Tick();
  EXPECT_EQ(Row("ns", "l")["state"], "expired");
  auto lease = board_->Lease({"ns", "l"});
  ASSERT_TRUE(lease);
  EXPECT_EQ((*lease)["terms"][0]["end"], "expired");
  // A renewal brings it back: a new term, held again.
  board_->ApplyLease("MODIFIED", Lease("ns", "l", "a", Now()));
  EXPECT_EQ(Row("ns", "l")["state"], "held");
  EXPECT_EQ((*board_->Lease({"ns", "l"}))["terms"].size(), 2u);
}

// A Lease that had expired before the board first saw it (an abandoned one) still has its term
// ended: its expiry is in the past, so it is due at once.
TEST_F(BoardTest, ALeaseFirstSeenExpiredHasItsTermEnded) {
  board_->ApplyLease("ADDED", Lease("ns", "old", "gone", Now(-3600)));
  EXPECT_EQ(Row("ns", "old")["state"], "expired");
  board_->Tick();
  auto lease = board_->Lease({"ns", "old"});
  ASSERT_TRUE(lease);
  EXPECT_EQ((*lease)["terms"][0]["end"], "expired");
}

TEST_F(BoardTest, TheOverviewSendsOnlyWhatChangedAndWhatEnteredItsWindow) {
  for (const char* name : {"a", "b", "c"})
    board_->ApplyLease("ADDED", Lease("ns", name, "h", Now()));
  OverviewFilter first_two;
  first_two.limit = 2;
  auto full = board_->Overview(first_two, 0);
  EXPECT_EQ(full.document["rows"].size(), 2u);
  EXPECT_EQ(full.document["total"], 3);
  const uint64_t seen = full.document["version"];
  board_->ApplyLease("MODIFIED", Lease("ns", "b", "h2", Now()));
  auto delta = board_->Overview(first_two, seen, &full.shown);
  ASSERT_EQ(delta.document["rows"].size(), 1u);
  EXPECT_EQ(delta.document["rows"][0]["holder"], "h2");
  // "a" goes: "c" enters the window although it did not change.
  board_->ApplyLease("DELETED", Lease("ns", "a", "h", Now()));
  auto after = board_->Overview(first_two, delta.document["version"], &delta.shown);
  ASSERT_EQ(after.document["rows"].size(), 1u);
  EXPECT_EQ(after.document["rows"][0]["name"], "c");
  EXPECT_EQ(after.shown, (std::set<LeaseKey>{{"ns", "b"}, {"ns", "c"}}));
  OverviewFilter search;
  search.search = "H2";
  EXPECT_EQ(board_->Overview(search, 0).document["total"], 1);
  OverviewFilter other;
  other.namespace_ = "elsewhere";
  EXPECT_EQ(board_->Overview(other, 0).document["total"], 0);
}

// The board keeps a Lease's spec in its own compact form: each member reads back as it came, set
// or not (a holder absent or empty, times missing, the coordinated members).
TEST_F(BoardTest, ARowShowsEveryMemberOfTheSpecAsItCame) {
  json full = Lease("ns", "full", "a-holder-name-longer-than-fifteen", Now(-3));
  full["spec"]["acquireTime"] = Now(-60);
  full["spec"]["leaseTransitions"] = 7;
  full["spec"]["strategy"] = "OldestEmulationVersion";
  full["spec"]["preferredHolder"] = "b";
  full["metadata"]["resourceVersion"] = "12345678901234567890";
  board_->ApplyLease("ADDED", full);
  json row = Row("ns", "full");
  EXPECT_EQ(row["holder"], "a-holder-name-longer-than-fifteen");
  EXPECT_EQ(row["acquireTime"], Now(-60));
  EXPECT_EQ(row["renewTime"], Now(-3));
  EXPECT_EQ(row["lastRenewal"], Now(-3));
  EXPECT_EQ(row["expires"], Now(12));
  EXPECT_EQ(row["leaseDurationSeconds"], 15);
  EXPECT_EQ(row["transitions"], 7);
  EXPECT_EQ(row["strategy"], "OldestEmulationVersion");
  EXPECT_EQ(row["preferredHolder"], "b");
  EXPECT_EQ(row["state"], "pending");
  EXPECT_EQ(row["resourceVersion"], "12345678901234567890");
  EXPECT_EQ((*board_->Lease({"ns", "full"}))["decision"]["preferredHolder"], "b");

  board_->ApplyLease(
      "ADDED", {{"metadata", {{"namespace", "ns"}, {"name", "bare"}}}, {"spec", json::object()}});
  row = Row("ns", "bare");
  EXPECT_EQ(row["holder"], "");
  EXPECT_TRUE(row["acquireTime"].is_null());
  EXPECT_TRUE(row["renewTime"].is_null());
  EXPECT_TRUE(row["lastRenewal"].is_null());
  EXPECT_TRUE(row["expires"].is_null());
  EXPECT_TRUE(row["leaseDurationSeconds"].is_null());
  EXPECT_EQ(row["transitions"], 0);
  EXPECT_EQ(row["strategy"], "");
  EXPECT_EQ(row["state"], "released");

  // Only acquired: the expiry counts from acquireTime.
  json acquired = Lease("ns", "acquired", "h", Now(-1));
  acquired["spec"].erase("renewTime");
  board_->ApplyLease("ADDED", acquired);
  row = Row("ns", "acquired");
  EXPECT_TRUE(row["renewTime"].is_null());
  EXPECT_EQ(row["lastRenewal"], Now(-1));
  EXPECT_EQ(row["expires"], Now(14));
  EXPECT_EQ(row["state"], "held");
}

TEST_F(BoardTest, ACandidateThatMovesToAnotherLeaseLeavesTheFirst) {
  board_->ApplyLease("ADDED", Lease("ns", "one", "x", Now()));
  board_->ApplyLease("ADDED", Lease("ns", "two", "x", Now()));
  auto candidate = [&](const std::string& lease) {
    return json{{"metadata", {{"namespace", "ns"}, {"name", "x"}, {"resourceVersion", "2"}}},
                {"spec",
                 {{"leaseName", lease},
                  {"binaryVersion", "1.33.0"},
                  {"emulationVersion", "1.33.0"},
                  {"strategy", "OldestEmulationVersion"}}}};
  };
  board_->ApplyCandidate("ADDED", candidate("one"));
  EXPECT_EQ(Row("ns", "one")["candidates"], 1);
  board_->ApplyCandidate("MODIFIED", candidate("two"));
  EXPECT_EQ(Row("ns", "one")["candidates"], 0);
  EXPECT_EQ(Row("ns", "two")["candidates"], 1);
  auto two = board_->Lease({"ns", "two"});
  EXPECT_EQ((*two)["candidates"][0]["holder"], true);
  EXPECT_EQ((*two)["decision"]["best"], "x");
  board_->ApplyCandidate("DELETED", candidate("two"));
  EXPECT_EQ(Row("ns", "two")["candidates"], 0);
}

// A deleted Lease leaves memory once its history is written; created again, it gets its history
// back from the archive.
TEST(BoardArchiveTest, ADeletedLeaseLeavesMemoryAndItsHistoryComesBackWithIt) {
  char pattern[] = "/tmp/tenure-board-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  auto clock = std::make_shared<FakeClock>();
  BoardOptions options;
  options.clock = clock;
  options.archive_path = dir + "/terms.jsonl";
  auto now = [&] { return api::FormatMicroTime(clock->wall_now()); };
  auto lease = [&](const std::string& holder) {
    return json{{"metadata", {{"namespace", "ns"}, {"name", "l"}, {"resourceVersion", "1"}}},
                {"spec",
                 {{"holderIdentity", holder},
                  {"leaseDurationSeconds", 15},
                  {"acquireTime", now()},
                  {"renewTime", now()}}}};
  };
  {
    auto board = Board::Detached(options);
    ASSERT_TRUE(board.ok());
    (*board)->ApplyLease("ADDED", lease("a"));
    clock->Advance(std::chrono::seconds(1));
    (*board)->ApplyLease("DELETED", lease("a"));
    (*board)->Stop();
  }
  auto board = Board::Detached(options);
  ASSERT_TRUE(board.ok());
  (*board)->ApplyLease("SYNCED", json::object());
  // Out of memory, its page shows the history from the archive.
  auto gone = (*board)->Lease({"ns", "l"});
  ASSERT_TRUE(gone);
  EXPECT_EQ((*gone)["exists"], false);
  EXPECT_EQ((*gone)["terms"][0]["end"], "deleted");
  clock->Advance(std::chrono::seconds(1));
  (*board)->ApplyLease("ADDED", lease("b"));
  auto view = (*board)->Lease({"ns", "l"});
  ASSERT_TRUE(view);
  ASSERT_EQ((*view)["terms"].size(), 2u) << view->dump();
  EXPECT_EQ((*view)["terms"][0]["end"], "deleted");
  EXPECT_EQ((*view)["terms"][1]["holder"], "b");
  (*board)->Stop();
  std::filesystem::remove_all(dir);
}

// After the feed starts over (the store lost events), a Lease it does not list again before
// SYNCED is gone: its term ends as deleted. One listed again keeps its term.
TEST_F(BoardTest, ALeaseNotListedAgainAfterAResetIsDeleted) {
  board_->ApplyLease("MODIFIED", Lease("ns", "kept", "h", Now()));
  board_->ApplyLease("MODIFIED", Lease("ns", "lost", "h", Now()));
  board_->ApplyLease("SYNCED", json::object());
  clock_->Advance(std::chrono::seconds(1));
  board_->ApplyLease("RESET", json::object());
  board_->ApplyLease("MODIFIED", Lease("ns", "kept", "h", Now()));
  EXPECT_EQ(Row("ns", "lost")["state"], "held") << "not judged before SYNCED";
  board_->ApplyLease("SYNCED", json::object());
  EXPECT_TRUE(Row("ns", "lost").is_null());
  auto lost = board_->Lease({"ns", "lost"});
  ASSERT_TRUE(lost);
  EXPECT_EQ((*lost)["exists"], false);
  EXPECT_EQ((*lost)["terms"][0]["end"], "deleted");
  auto kept = board_->Lease({"ns", "kept"});
  ASSERT_TRUE(kept);
  ASSERT_EQ((*kept)["terms"].size(), 1u);
  EXPECT_EQ((*kept)["terms"][0]["end"], "current");
}

TEST_F(BoardTest, ReplicasAreTheIdentityLeasesThatHaveNotExpired) {
  json identity = {{"apiserver.kubernetes.io/identity", "kube-apiserver"}};
  board_->ApplyLease("ADDED", Lease("kube-system", "apiserver-a", "a_1", Now(), 3600, identity));
  board_->ApplyLease("ADDED",
                     Lease("kube-system", "apiserver-b", "b_1", Now(-4000), 3600, identity));
  board_->ApplyLease("ADDED", Lease("default", "apiserver-c", "c_1", Now(), 3600, identity));
  EXPECT_EQ(board_->Server()["replicas"], 1);
}

}  // namespace
}  // namespace tenure::dashboard
