// Admission: request classes, per-level in-flight limits (429 with Retry-After), the expensive
// pool off the request threads.
#include "server/admission.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace tenure::server {
namespace {

// Records its answer; never streams.
class RecordingResponder : public Responder {
 public:
  void Reply(HttpResponse response) override {
    std::lock_guard lock(mu_);
    replies_.push_back(std::move(response));
  }
  std::shared_ptr<ResponseStream> Stream(int, std::string, std::chrono::steady_clock::time_point,
                                         std::chrono::milliseconds,
                                         std::function<void()>) override {
    return nullptr;
  }
  std::vector<HttpResponse> replies() {
    std::lock_guard lock(mu_);
    return replies_;
  }

 private:
  std::mutex mu_;
  std::vector<HttpResponse> replies_;
};

HttpRequest Request(const std::string& method, const std::string& path, size_t body = 0) {
  HttpRequest r;
  r.method = method;
  r.path = path;
  r.body.assign(body, ' ');
  return r;
}

// Fulfils a promise a pool thread waits on when the test ends early (a failed ASSERT), so the
// admission's destructor can join its pool; declare it after the Admission.
struct ReleaseAtExit {
  std::promise<void>& release;
  ~ReleaseAtExit() {
    try {
      release.set_value();
    } catch (const std::future_error&) {  // already released
    }
  }
};

RequestClass ClassOf(const std::string& method, const std::string& path, size_t body = 0,
                     bool watch = false) {
  HttpRequest r = Request(method, path, body);
  if (watch) r.query.emplace("watch", "true");
  return Classify(ParseRequestInfo(r), r);
}

TEST(AdmissionTest, LeaderElectionTrafficHasItsOwnLevel) {
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/ns/leases";
  EXPECT_EQ(ClassOf("GET", leases + "/l").level, PriorityLevel::kLeaderElection);
  EXPECT_EQ(ClassOf("PUT", leases + "/l", 500).level, PriorityLevel::kLeaderElection);
  EXPECT_EQ(ClassOf("POST", leases, 500).level, PriorityLevel::kLeaderElection);
  EXPECT_EQ(ClassOf("PUT", "/api/v1/namespaces/ns/configmaps/lock", 500).level,
            PriorityLevel::kLeaderElection);
  // A list is expensive, and not leader election; a huge body neither.
  RequestClass list = ClassOf("GET", leases);
  EXPECT_EQ(list.level, PriorityLevel::kReadOnly);
  EXPECT_TRUE(list.expensive);
  RequestClass huge = ClassOf("PUT", "/api/v1/namespaces/ns/configmaps/big", 1 << 20);
  EXPECT_EQ(huge.level, PriorityLevel::kMutating);
  EXPECT_TRUE(huge.expensive);
  EXPECT_EQ(ClassOf("PATCH", "/api/v1/namespaces/ns/configmaps/c", 100).level,
            PriorityLevel::kMutating);
  EXPECT_EQ(ClassOf("GET", "/api/v1/namespaces/ns/events/e").level, PriorityLevel::kReadOnly);
  EXPECT_TRUE(ClassOf("GET", leases, 0, /*watch=*/true).long_running);
  EXPECT_FALSE(ClassOf("PUT", leases + "/l", 500).expensive);
}

TEST(AdmissionTest, EachLevelHasItsLimitAndAnswers429WithRetryAfter) {
  AdmissionOptions options;
  options.max_read_only_inflight = 2;
  options.max_leader_election_inflight = 1;
  Admission admission(options);
  RequestClass read{PriorityLevel::kReadOnly, false, false};
  RequestClass lease{PriorityLevel::kLeaderElection, false, false};
  std::vector<std::shared_ptr<Responder>> held;  // admitted, not answered yet
  auto hold = [&](std::shared_ptr<Responder> r) { held.push_back(std::move(r)); };
  for (int i = 0; i < 2; ++i) admission.Run(read, std::make_shared<RecordingResponder>(), hold);
  auto rejected = std::make_shared<RecordingResponder>();
  admission.Run(read, rejected, hold);
  ASSERT_EQ(rejected->replies().size(), 1u);
  EXPECT_EQ(rejected->replies()[0].status, 429);
  EXPECT_EQ(rejected->replies()[0].headers,
            (std::vector<std::pair<std::string, std::string>>{{"Retry-After", "1"}}));
  EXPECT_EQ(admission.rejected(PriorityLevel::kReadOnly), 1u);
  // Leader election is not affected by the full read-only level.
  admission.Run(lease, std::make_shared<RecordingResponder>(), hold);
  EXPECT_EQ(admission.inflight(PriorityLevel::kLeaderElection), 1u);
  // An answer frees the place; so does dropping the responder unanswered.
  held[0]->Reply(HttpResponse{});
  EXPECT_EQ(admission.inflight(PriorityLevel::kReadOnly), 1u);
  held.clear();
  EXPECT_EQ(admission.inflight(PriorityLevel::kReadOnly), 0u);
  EXPECT_EQ(admission.inflight(PriorityLevel::kLeaderElection), 0u);
  // Watches are not counted.
  RequestClass watch{PriorityLevel::kReadOnly, true, false};
  for (int i = 0; i < 5; ++i) admission.Run(watch, std::make_shared<RecordingResponder>(), hold);
  EXPECT_EQ(held.size(), 5u);
  EXPECT_EQ(admission.inflight(PriorityLevel::kReadOnly), 0u);
}

TEST(AdmissionTest, ExpensiveRequestsRunOnTheirPoolWithABoundedQueue) {
  // Declared before the admission, so that they outlive its pool thread.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<std::thread::id> ran_on;
  AdmissionOptions options;
  options.expensive_threads = 1;
  options.expensive_queue = 1;
  Admission admission(options);
  ReleaseAtExit guard{release};
  RequestClass expensive{PriorityLevel::kReadOnly, false, true};
  auto blocker = std::make_shared<RecordingResponder>();
  admission.Run(expensive, blocker, [&ran_on, released](std::shared_ptr<Responder> r) {
    ran_on.set_value(std::this_thread::get_id());
    released.wait();
    r->Reply(HttpResponse{});
  });
  EXPECT_NE(ran_on.get_future().get(), std::this_thread::get_id());
  auto queued = std::make_shared<RecordingResponder>();
  admission.Run(expensive, queued, [](std::shared_ptr<Responder> r) { r->Reply(HttpResponse{}); });
  auto refused = std::make_shared<RecordingResponder>();
  admission.Run(expensive, refused, [](std::shared_ptr<Responder> r) { r->Reply(HttpResponse{}); });
  ASSERT_EQ(refused->replies().size(), 1u);
  EXPECT_EQ(refused->replies()[0].status, 429);
  release.set_value();
}

// With a store whose reads block (etcd), a read stuck on a hung member must not hold an HTTP
// thread a renewal needs: requests outside leader election run on the blocking pool, leader
// election stays on the connection's thread. Without the pool (SQLite) both run inline.
TEST(AdmissionTest, WithBlockingReadsOnlyLeaderElectionRunsOnTheRequestThreads) {
  std::promise<void> release;  // outlive the pool thread
  std::shared_future<void> released = release.get_future().share();
  std::promise<std::thread::id> read_ran_on;
  AdmissionOptions options;
  options.blocking_threads = 1;
  Admission admission(options);
  ReleaseAtExit guard{release};
  RequestClass read = ClassOf("GET", "/api/v1/namespaces/default/pods/p");
  ASSERT_EQ(read.level, PriorityLevel::kReadOnly);
  ASSERT_FALSE(read.expensive);
  auto stuck = std::make_shared<RecordingResponder>();
  admission.Run(read, stuck, [&read_ran_on, released](std::shared_ptr<Responder> r) {
    read_ran_on.set_value(std::this_thread::get_id());
    released.wait();  // a round trip to a hung member
    r->Reply(HttpResponse{});
  });
  EXPECT_NE(read_ran_on.get_future().get(), std::this_thread::get_id());
  RequestClass renewal = ClassOf("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l");
  ASSERT_EQ(renewal.level, PriorityLevel::kLeaderElection);
  std::thread::id renewal_ran_on;
  auto renewed = std::make_shared<RecordingResponder>();
  admission.Run(renewal, renewed, [&renewal_ran_on](std::shared_ptr<Responder> r) {
    renewal_ran_on = std::this_thread::get_id();
    r->Reply(HttpResponse{});
  });
  EXPECT_EQ(renewal_ran_on, std::this_thread::get_id());
  ASSERT_EQ(renewed->replies().size(), 1u);
  EXPECT_EQ(renewed->replies()[0].status, 200);
  release.set_value();

  Admission inline_admission(AdmissionOptions{});
  std::thread::id inline_ran_on;
  inline_admission.Run(read, std::make_shared<RecordingResponder>(),
                       [&inline_ran_on](std::shared_ptr<Responder> r) {
                         inline_ran_on = std::this_thread::get_id();
                         r->Reply(HttpResponse{});
                       });
  EXPECT_EQ(inline_ran_on, std::this_thread::get_id());
}

// With a blocking store (etcd), leader election's requests that read have a pool of their own:
// a Lease GET waiting for etcd's revision holds neither an HTTP thread nor waits behind the other
// requests' reads. Only an update, which the store may send on a version it knows, starts on the
// connection's thread, and what it posts (a read after all, a retry) goes to that pool.
TEST(AdmissionTest, LeaderElectionRequestsThatReadRunOnAPoolOfTheirOwnAndOnlyUpdatesInline) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  AdmissionOptions options;
  options.blocking_threads = 1;
  options.leader_election_threads = 2;
  Admission admission(options);
  ReleaseAtExit guard{release};
  // The other requests' only pool thread is stuck on a hung member.
  std::promise<void> other_started;
  admission.Run(ClassOf("GET", "/api/v1/namespaces/default/pods/p"),
                std::make_shared<RecordingResponder>(),
                [&other_started, released](std::shared_ptr<Responder> r) {
                  other_started.set_value();
                  released.wait();
                  r->Reply(HttpResponse{});
                });
  other_started.get_future().wait();
  const std::string lease = "/apis/coordination.k8s.io/v1/namespaces/default/leases/l";
  // Where a request of `cls` runs, and where what it posts runs.
  auto threads_of = [&admission](const RequestClass& cls) {
    auto ran_on = std::make_shared<std::promise<std::thread::id>>();
    auto posted_on = std::make_shared<std::promise<std::thread::id>>();
    admission.Run(cls, std::make_shared<RecordingResponder>(),
                  [ran_on, posted_on](std::shared_ptr<Responder> r) {
                    ran_on->set_value(std::this_thread::get_id());
                    r->Post([r, posted_on] {
                      posted_on->set_value(std::this_thread::get_id());
                      r->Reply(HttpResponse{});
                    });
                  });
    auto ran = ran_on->get_future();
    auto posted = posted_on->get_future();
    EXPECT_EQ(ran.wait_for(std::chrono::seconds(60)), std::future_status::ready);
    EXPECT_EQ(posted.wait_for(std::chrono::seconds(60)), std::future_status::ready);
    return std::make_pair(ran.get(), posted.get());
  };
  const auto caller = std::this_thread::get_id();
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", lease},
           {"POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases"},
           {"PATCH", lease},
           {"DELETE", lease}}) {
    RequestClass cls = ClassOf(method, path);
    ASSERT_EQ(cls.level, PriorityLevel::kLeaderElection) << method;
    auto [ran, posted] = threads_of(cls);
    EXPECT_NE(ran, caller) << method << " ran on the connection's thread";
    EXPECT_NE(posted, caller) << method;
  }
  RequestClass renewal = ClassOf("PUT", lease);
  ASSERT_FALSE(renewal.read_only);
  ASSERT_TRUE(renewal.may_write_without_reading);
  auto [ran, posted] = threads_of(renewal);
  EXPECT_EQ(ran, caller);
  EXPECT_NE(posted, caller) << "an update's read after all ran on the connection's thread";

  // A watch's start (a list, the current revision) runs on its level's pool too, uncounted.
  std::promise<std::thread::id> watch_ran_on;
  admission.Run(ClassOf("GET", lease, 0, /*watch=*/true), std::make_shared<RecordingResponder>(),
                [&watch_ran_on](std::shared_ptr<Responder>) {
                  watch_ran_on.set_value(std::this_thread::get_id());
                });
  auto watch_thread = watch_ran_on.get_future();
  ASSERT_EQ(watch_thread.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_NE(watch_thread.get(), caller);
  // The last request's slot is given back after its handler set the promise: wait for it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (admission.inflight(PriorityLevel::kLeaderElection) != 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(admission.inflight(PriorityLevel::kLeaderElection), 0u);
  release.set_value();

  // Without a blocking store everything but the expensive requests runs inline.
  Admission inline_admission(AdmissionOptions{});
  std::thread::id watch_inline;
  inline_admission.Run(
      ClassOf("GET", lease, 0, /*watch=*/true), std::make_shared<RecordingResponder>(),
      [&watch_inline](std::shared_ptr<Responder>) { watch_inline = std::this_thread::get_id(); });
  EXPECT_EQ(watch_inline, caller);
}

}  // namespace
}  // namespace tenure::server
