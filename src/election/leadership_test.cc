// Leadership (Spring-style API) with a FakeClock and MemoryLocks: time moves only once the
// code under test sleeps.
#include "tenure/leadership.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "tenure/fake_clock.h"
#include "tenure/memory_lock.h"
#include "tenure/testing/waits.h"

namespace tenure {
namespace {

using namespace std::chrono_literals;

using testing::Eventually;

struct Events {
  std::mutex mu;
  std::vector<std::string> log;
  std::vector<LeadershipContext> granted;
  std::atomic<int> granted_count{0}, revoked_count{0};
  void Add(std::string e) {
    std::lock_guard lock(mu);
    log.push_back(std::move(e));
  }
  std::vector<std::string> Log() {
    std::lock_guard lock(mu);
    return log;
  }
  LeadershipContext Granted(size_t i) {
    std::lock_guard lock(mu);
    return granted.at(i);
  }
};

class LeadershipTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::shared_ptr<MemoryLockStore> store_ = std::make_shared<MemoryLockStore>();

  LeadershipOptions Options(const std::string& identity, Events& ev) {
    LeadershipOptions o;
    o.election.lock = std::make_shared<MemoryLock>(store_, identity);
    o.election.clock = clock_;
    o.role = "my-role";
    o.on_granted = [&ev](const LeadershipContext& c) {
      {
        std::lock_guard lock(ev.mu);
        ev.granted.push_back(c);
      }
      ev.Add("granted " + c.role + " " + c.term.identity);
      ++ev.granted_count;
    };
    o.on_revoked = [&ev](const LeadershipContext& c) {
      EXPECT_TRUE(c.stop.stop_requested());
      ev.Add("revoked " + c.role + " " + c.term.identity);
      ++ev.revoked_count;
    };
    return o;
  }

  struct Running {
    std::unique_ptr<Leadership> leadership;
    std::jthread thread;
    ~Running() {
      if (thread.joinable()) {
        thread.request_stop();
        thread.join();
      }
    }
  };
  std::unique_ptr<Running> Start(LeadershipOptions options) {
    auto l = Leadership::Create(std::move(options));
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    auto r = std::make_unique<Running>();
    r->leadership = std::move(*l);
    r->thread = std::jthread([l = r->leadership.get()](std::stop_token stop) { l->Run(stop); });
    return r;
  }

  void Advance(std::chrono::nanoseconds total, int sleepers) {
    ASSERT_TRUE(testing::AdvanceWhenAsleep(*clock_, total, sleepers))
        << "sleepers: " << clock_->sleepers();
  }
};

TEST_F(LeadershipTest, CreateRejectsMissingOrConflictingCallbacks) {
  Events ev;
  LeadershipOptions o = Options("a", ev);
  o.on_granted = nullptr;
  EXPECT_EQ(Leadership::Create(o).status().reason(), Reason::kInvalid);
  o = Options("a", ev);
  o.election.callbacks.on_started_leading = [](std::stop_token, const LeaderTerm&) {};
  EXPECT_EQ(Leadership::Create(o).status().reason(), Reason::kInvalid);
  o = Options("a", ev);
  o.election.lease_duration = 5s;  // not greater than the renew deadline
  EXPECT_EQ(Leadership::Create(o).status().message(),
            "leaseDuration must be greater than renewDeadline");
}

TEST_F(LeadershipTest, GrantedThenRevokedOnStopWithRoleAndTerm) {
  Events ev;
  auto r = Start(Options("a", ev));
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 1; }));
  EXPECT_EQ(r->leadership->role(), "my-role");
  EXPECT_EQ(ev.Granted(0).term.identity, "a");
  EXPECT_EQ(ev.Granted(0).term.fencing_token, static_cast<uint64_t>(store_->current()->version));
  EXPECT_FALSE(ev.Granted(0).stop.stop_requested());
  r.reset();  // stops the election
  EXPECT_EQ(ev.revoked_count.load(), 1);
  EXPECT_EQ(ev.Log(), (std::vector<std::string>{"granted my-role a", "revoked my-role a"}));
}

TEST_F(LeadershipTest, RoleDefaultsToTheElectionName) {
  Events ev;
  LeadershipOptions o = Options("a", ev);
  o.role.clear();
  o.election.name = "ns/lock";
  auto l = Leadership::Create(std::move(o));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ((*l)->role(), "ns/lock");
}

TEST_F(LeadershipTest, YieldReleasesStaysACandidateAndCampaignsAgainAfterThePause) {
  Events ev;
  LeadershipOptions o = Options("a", ev);
  o.election.recontend_after = 3s;
  auto r = Start(std::move(o));
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 1; }));
  uint64_t first_token = ev.Granted(0).term.fencing_token;
  ev.Granted(0).Yield();
  ASSERT_TRUE(Eventually([&] { return ev.revoked_count.load() == 1; }));
  ASSERT_TRUE(Eventually([&] { return store_->current()->record.holder_identity.empty(); }));
  EXPECT_FALSE(r->leadership->IsLeader());
  // The elector sleeps out the pause; the ended term's deadline timer still sleeps too.
  ASSERT_TRUE(clock_->WaitForSleepers(2, 10s));
  // Not before the pause...
  Advance(2500ms, 1);
  EXPECT_EQ(ev.granted_count.load(), 1);
  // ...but after it, the same candidate leads again with a larger fencing token.
  Advance(1s, 1);
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 2; }));
  EXPECT_GT(ev.Granted(1).term.fencing_token, first_token);
  EXPECT_EQ(store_->current()->record.holder_identity, "a");
}

TEST_F(LeadershipTest, YieldHandsTheLeaseToAWaitingCandidateAtOnce) {
  Events ea, eb;
  auto a = Start(Options("a", ea));
  ASSERT_TRUE(Eventually([&] { return ea.granted_count.load() == 1; }));
  auto b = Start(Options("b", eb));
  ASSERT_TRUE(clock_->WaitForSleepers(3, 10s));  // a, a's term timer, b watching
  a->leadership->Yield();
  // b's watch sees the released lease: no time needs to pass.
  ASSERT_TRUE(Eventually([&] { return eb.granted_count.load() == 1; }));
  // a's on_revoked runs on a's term thread: not ordered with b's on_granted.
  ASSERT_TRUE(Eventually([&] { return ea.revoked_count.load() == 1; }));
  EXPECT_EQ(store_->current()->record.holder_identity, "b");
  EXPECT_EQ(store_->current()->record.leader_transitions, 1);
  EXPECT_EQ(ea.granted_count.load(), 1);
  EXPECT_TRUE(a->thread.joinable());  // still campaigning
}

TEST_F(LeadershipTest, StopCallbacksOfTheTermMayCallTheElectorWhenYielding) {
  Events ev;
  std::atomic<bool> asked{false};
  std::optional<std::stop_callback<std::function<void()>>> on_stop;
  LeadershipOptions o = Options("a", ev);
  auto r = Start(std::move(o));
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 1; }));
  Leadership* l = r->leadership.get();
  on_stop.emplace(ev.Granted(0).stop, std::function<void()>([&, l] {
                    asked = !l->IsLeader();  // takes the elector's lock: no deadlock
                  }));
  ev.Granted(0).Yield();
  ASSERT_TRUE(Eventually([&] { return ev.revoked_count.load() == 1; }));
  EXPECT_TRUE(asked.load());
  on_stop.reset();
}

TEST_F(LeadershipTest, ATermIsRevokedBeforeTheNextOneIsGranted) {
  Events ev;
  std::promise<void> release_revoked;
  std::shared_future<void> revoked_may_return = release_revoked.get_future().share();
  LeadershipOptions o = Options("a", ev);
  o.election.recontend_after = 0s;  // campaign again at once after yielding
  o.on_revoked = [&ev, revoked_may_return](const LeadershipContext&) {
    ++ev.revoked_count;
    revoked_may_return.wait();
  };
  auto r = Start(std::move(o));
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 1; }));
  r->leadership->Yield();
  ASSERT_TRUE(Eventually([&] { return ev.revoked_count.load() == 1; }));
  // While the first term's on_revoked runs, no second term is granted (a short real window).
  EXPECT_FALSE(Eventually([&] { return ev.granted_count.load() == 2; }, 300ms));
  release_revoked.set_value();
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 2; }));
}

TEST_F(LeadershipTest, YieldWithoutATermDoesNothing) {
  Events ea, eb;
  auto a = Start(Options("a", ea));
  ASSERT_TRUE(Eventually([&] { return ea.granted_count.load() == 1; }));
  auto b = Start(Options("b", eb));
  ASSERT_TRUE(Eventually([&] { return b->leadership->elector()->Leader() == "a"; }));
  uint64_t version = store_->current()->version;
  b->leadership->Yield();   // a follower has nothing to give up
  LeadershipContext stale;  // a context without an elector
  stale.Yield();
  EXPECT_TRUE(a->leadership->IsLeader());
  EXPECT_EQ(store_->current()->record.holder_identity, "a");
  EXPECT_EQ(store_->current()->version, version);  // no release was written
  EXPECT_EQ(ea.revoked_count.load(), 0);
  EXPECT_EQ(eb.granted_count.load(), 0);
}

TEST_F(LeadershipTest, ReadinessGateHoldsTheCampaignUntilReady) {
  Events ev;
  std::atomic<bool> ready{false};
  std::atomic<int> asked{0};
  LeadershipOptions o = Options("a", ev);
  o.ready_to_campaign = [&] {
    ++asked;
    return ready.load();
  };
  auto r = Start(std::move(o));
  Advance(6s, 1);  // asked every retry period (2 s)
  EXPECT_GE(asked.load(), 3);
  EXPECT_FALSE(r->leadership->campaigning());
  EXPECT_FALSE(store_->current().has_value());  // not a single request
  EXPECT_EQ(store_->reads() + store_->writes(), 0);
  ready = true;
  Advance(2s, 1);
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 1; }));
  EXPECT_TRUE(r->leadership->campaigning());
}

TEST_F(LeadershipTest, ReadinessGateGivesUpWhenStopped) {
  Events ev;
  LeadershipOptions o = Options("a", ev);
  o.ready_to_campaign = [] { return false; };
  auto r = Start(std::move(o));
  ASSERT_TRUE(clock_->WaitForSleepers(1, 10s));
  r.reset();  // joins: Run returned without campaigning
  EXPECT_EQ(ev.granted_count.load(), 0);
}

TEST_F(LeadershipTest, WaitAfterRenewalFailureDelaysTheNextCampaign) {
  Events ev;
  LeadershipOptions o = Options("a", ev);
  o.election.recontend_after = 3s;  // Spring's waitAfterRenewalFailure
  auto r = Start(std::move(o));
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 1; }));
  ASSERT_TRUE(clock_->WaitForSleepers(2, 10s));
  store_->SetFailure(Status::Unavailable("down"));
  Advance(12s, 2);  // renewals fail from 2 s on; the term ends by 2 s + renew deadline
  ASSERT_TRUE(Eventually([&] { return ev.revoked_count.load() == 1; }));
  store_->SetFailure(Status::Ok());
  // The elector sleeps out the wait; the ended term's deadline timer (14.75 s) still sleeps too.
  ASSERT_TRUE(clock_->WaitForSleepers(2, 10s));
  Advance(2s, 1);
  EXPECT_EQ(ev.granted_count.load(), 1);
  Advance(2s, 1);
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 2; }));
}

TEST_F(LeadershipTest, ALeaseGivenAwayByAnOperatorIsRevokedNotOverwritten) {
  Events ev;
  auto r = Start(Options("a", ev));
  ASSERT_TRUE(Eventually([&] { return ev.granted_count.load() == 1; }));
  ASSERT_TRUE(clock_->WaitForSleepers(2, 10s));  // the elector and the term's deadline timer
  LeaderElectionRecord taken = store_->current()->record;
  taken.holder_identity = "operator";
  taken.lease_duration_seconds = 3600;
  store_->Put(taken);  // seen by a's watch: its cached version is now the operator's write
  ASSERT_TRUE(Eventually([&] { return r->leadership->elector()->Leader() == "operator"; }));
  // The watch ends the term at once: no clock advance, no renewal attempt needed (client-go
  // would keep leading until a renewal fails, up to RenewDeadline later).
  ASSERT_TRUE(Eventually([&] { return ev.revoked_count.load() == 1; }));
  EXPECT_EQ(store_->current()->record.holder_identity, "operator");
  EXPECT_FALSE(r->leadership->IsLeader());
}

TEST_F(LeadershipTest, InfoDocumentFollowsSpringsInfoContributor) {
  Events ea, eb;
  auto a_or = Leadership::Create(Options("a", ea));
  ASSERT_TRUE(a_or.ok());
  auto info = nlohmann::json::parse((*a_or)->InfoJson());
  EXPECT_EQ(info, nlohmann::json::parse(
                      R"({"leaderElection":{"leaderId":null,"role":"my-role","isLeader":false}})"));
  a_or->reset();
  auto a = Start(Options("a", ea));
  ASSERT_TRUE(Eventually([&] { return a->leadership->IsLeader(); }));
  auto b = Start(Options("b", eb));
  ASSERT_TRUE(Eventually([&] { return b->leadership->elector()->Leader() == "a"; }));
  EXPECT_EQ(nlohmann::json::parse(a->leadership->InfoJson()),
            nlohmann::json::parse(
                R"({"leaderElection":{"leaderId":"a","role":"my-role","isLeader":true}})"));
  EXPECT_EQ(nlohmann::json::parse(b->leadership->InfoJson()),
            nlohmann::json::parse(
                R"({"leaderElection":{"leaderId":"a","role":"my-role","isLeader":false}})"));
}

}  // namespace
}  // namespace tenure
