// GuaranteedUpdate: when attempts are redone (conflict, NotFound, read again) and where.
#include "server/guaranteed_update.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>

#include "store/sqlite_store.h"
#include "store/store_test_util.h"
#include "tenure/fake_clock.h"

namespace tenure::server {
namespace {

// Counts the work handed back to a request thread, and runs it at once.
class PostCountingResponder : public Responder {
 public:
  void Reply(HttpResponse) override {}
  void Post(std::function<void()> work) override {
    ++posts;
    work();
  }
  std::shared_ptr<ResponseStream> Stream(int, std::string, std::chrono::steady_clock::time_point,
                                         std::chrono::milliseconds,
                                         std::function<void()>) override {
    return nullptr;
  }
  std::atomic<int> posts{0};
};

constexpr const char* kKey = "/registry/configmaps/ns/cm";

class GuaranteedUpdateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    auto sqlite = store::SqliteStore::Open({.path = dir_.File("db")});
    ASSERT_TRUE(sqlite.ok()) << sqlite.status().ToString();
    store_ = std::move(*sqlite);
    auto created = store_->WriteSync({store::WriteOp::Kind::kCreate, kKey, "v0", 0});
    ASSERT_TRUE(created.ok());
    revision_ = created->mod_revision;
  }

  // Runs the loop with `attempt`; returns the written result, or nullopt when the attempts
  // ended it themselves.
  std::optional<Result<store::KeyValue>> Run(std::function<UpdateStep(bool first)> attempt) {
    auto written = std::make_shared<std::promise<Result<store::KeyValue>>>();
    auto done = std::make_shared<std::promise<void>>();
    GuaranteedUpdate(
        {.store = store_.get(),
         .clock = clock_,
         .received = clock_->now(),
         .responder = responder_,
         .attempt =
             [this, attempt = std::move(attempt), done](bool first) {
               {
                 std::lock_guard lock(mu_);
                 firsts_.push_back(first);
               }
               UpdateStep step = attempt(first);
               if (step.kind == UpdateStep::Kind::kAnswered) done->set_value();
               return step;
             },
         .written = [written](Result<store::KeyValue> r) { written->set_value(std::move(r)); }});
    auto w = written->get_future();
    auto d = done->get_future();
    while (true) {
      if (w.wait_for(std::chrono::milliseconds(10)) == std::future_status::ready) return w.get();
      if (d.wait_for(std::chrono::milliseconds(10)) == std::future_status::ready) {
        return std::nullopt;
      }
    }
  }
  UpdateStep WriteExpecting(int64_t revision, std::string value, bool again_on_conflict,
                            bool again_on_not_found = false, std::string key = kKey) {
    return UpdateStep::Write({store::WriteOp::Kind::kUpdate, key, std::move(value), revision},
                             again_on_conflict, again_on_not_found);
  }
  std::vector<bool> firsts() {
    std::lock_guard lock(mu_);
    return firsts_;
  }

  store::test_util::TempDir dir_;
  std::shared_ptr<store::SqliteStore> store_;
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::shared_ptr<PostCountingResponder> responder_ = std::make_shared<PostCountingResponder>();
  int64_t revision_ = 0;
  std::mutex mu_;
  std::vector<bool> firsts_;
};

TEST_F(GuaranteedUpdateTest, AConflictStartsAnotherAttemptOnARequestThread) {
  auto result = Run([this](bool first) {
    return WriteExpecting(first ? revision_ + 100 : revision_, "v1", /*again_on_conflict=*/true);
  });
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->ok()) << result->status().ToString();
  EXPECT_EQ((*result)->value, "v1");
  EXPECT_EQ(firsts(), (std::vector<bool>{true, false}));
  EXPECT_EQ(responder_->posts, 1);
}

TEST_F(GuaranteedUpdateTest, AConflictAfterTheWindowEndsTheLoop) {
  auto result = Run([this](bool) {
    clock_->Advance(kConflictRetryWindow);
    return WriteExpecting(revision_ + 100, "v1", /*again_on_conflict=*/true);
  });
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->status().IsConflict()) << result->status().ToString();
  EXPECT_EQ(firsts().size(), 1u);
  EXPECT_EQ(responder_->posts, 0);
}

TEST_F(GuaranteedUpdateTest, AConflictTheStepDoesNotRetryIsTheAnswer) {
  auto result = Run([this](bool) { return WriteExpecting(revision_ + 100, "v1", false); });
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->status().IsConflict());
  EXPECT_EQ(firsts().size(), 1u);
}

TEST_F(GuaranteedUpdateTest, NotFoundStartsAnotherAttemptOnlyWhenTheStepSaysSo) {
  auto result = Run([this](bool first) {
    if (!first) return UpdateStep::Answered();
    return WriteExpecting(revision_, "v1", false, /*again_on_not_found=*/true, "/missing");
  });
  EXPECT_FALSE(result.has_value());
  EXPECT_EQ(firsts(), (std::vector<bool>{true, false}));
  EXPECT_EQ(responder_->posts, 1);
}

TEST_F(GuaranteedUpdateTest, ReadAgainRunsTheNextAttemptAtOnce) {
  auto result =
      Run([](bool first) { return first ? UpdateStep::ReadAgain() : UpdateStep::Answered(); });
  EXPECT_FALSE(result.has_value());
  EXPECT_EQ(firsts(), (std::vector<bool>{true, false}));
  EXPECT_EQ(responder_->posts, 0);
}

}  // namespace
}  // namespace tenure::server
