// Admission: request classes, in-flight limits per priority level, the expensive and blocking
// pools.
#include "server/admission.h"

#include <cstdio>
#include <exception>

#include "server/response_format.h"
#include "tenure/log.h"

namespace tenure::server {
namespace {

bool IsLeaderElectionKind(const RequestInfo& info) {
  return info.group == "coordination.k8s.io" &&
         (info.resource == "leases" || info.resource == "leasecandidates");
}

// Declared here, used by AdmittedResponder::Post.
void RunGuarded(const std::function<void(std::shared_ptr<Responder>)>& handle,
                const std::shared_ptr<Responder>& responder);

// Frees its admission place once the request is answered (or dropped unanswered).
class AdmittedResponder final : public Responder,
                                public std::enable_shared_from_this<AdmittedResponder> {
 public:
  // `submit`: where Post sends further work (the pool the request runs on; null:
  // the connection's thread).
  AdmittedResponder(std::shared_ptr<Responder> inner, std::atomic<size_t>* inflight,
                    std::function<bool(std::function<void()>)> submit)
      : inner_(std::move(inner)), inflight_(inflight), submit_(std::move(submit)) {}
  ~AdmittedResponder() override { Release(); }

  void Reply(HttpResponse response) override {
    Release();
    inner_->Reply(std::move(response));
  }
  void ReplyWith(std::function<HttpResponse()> make) override {
    Release();
    inner_->ReplyWith(std::move(make));
  }
  std::shared_ptr<ResponseStream> Stream(int status, std::string content_type,
                                         std::chrono::steady_clock::time_point deadline,
                                         std::chrono::milliseconds idle_interval,
                                         std::function<void()> idle) override {
    Release();
    return inner_->Stream(status, std::move(content_type), deadline, idle_interval,
                          std::move(idle));
  }
  void AnswerBy(std::chrono::steady_clock::time_point deadline) override {
    inner_->AnswerBy(deadline);
  }
  void Post(std::function<void()> work) override {
    if (submit_) {
      auto shared = std::make_shared<std::function<void()>>(std::move(work));
      auto self = shared_from_this();
      if (submit_([shared, self] {
            RunGuarded([shared](std::shared_ptr<Responder>) { (*shared)(); }, self);
          })) {
        return;
      }
      work = std::move(*shared);
    }
    inner_->Post(std::move(work));
  }

 private:
  void Release() {
    if (!released_.exchange(true)) inflight_->fetch_sub(1);
  }
  std::shared_ptr<Responder> inner_;
  std::atomic<size_t>* inflight_;
  std::function<bool(std::function<void()>)> submit_;
  std::atomic<bool> released_{false};
};

// Runs a request's handler where no connection catches for it: an exception (a bug) is answered
// 500, never the end of the process.
void RunGuarded(const std::function<void(std::shared_ptr<Responder>)>& handle,
                const std::shared_ptr<Responder>& responder) {
  try {
    handle(responder);
  } catch (const std::exception& e) {
    Log(LogLevel::kError, "server", "request handler failed", {{"error", e.what()}});
    responder->Reply(ErrorResponse(
        Status::Internal(std::string("the server failed to handle the request: ") + e.what())));
  }
}

Status TooManyRequests() {
  // kube-apiserver's words (its max-in-flight filter), and Retry-After: 1.
  Status status(Reason::kTooManyRequests, "Too many requests, please try again later.");
  StatusDetails details;
  details.retry_after_seconds = 1;
  status.set_details(std::move(details));
  return status;
}

}  // namespace

RequestClass Classify(const RequestInfo& info, const HttpRequest& request) {
  RequestClass cls;
  const std::optional<Verb>& verb = info.verb;
  cls.long_running = verb == Verb::kWatch;
  bool read_only = verb && IsReadOnly(*verb);
  cls.read_only = read_only;
  cls.may_write_without_reading = verb == Verb::kUpdate;
  bool small = request.body.size() <= kExpensiveBodyBytes;
  cls.expensive = verb == Verb::kList || verb == Verb::kDeleteCollection || !small;
  bool single_object = !info.name.empty() || verb == Verb::kCreate;
  if (single_object && small &&
      (IsLeaderElectionKind(info) ||
       (info.group.empty() && info.resource == "configmaps" &&
        (verb == Verb::kGet || verb == Verb::kUpdate || verb == Verb::kCreate)))) {
    cls.level = PriorityLevel::kLeaderElection;
  } else {
    cls.level = read_only ? PriorityLevel::kReadOnly : PriorityLevel::kMutating;
  }
  return cls;
}

const char* PriorityLevelName(PriorityLevel level) {
  switch (level) {
    case PriorityLevel::kLeaderElection:
      return "leader-election";
    case PriorityLevel::kReadOnly:
      return "read-only";
    case PriorityLevel::kMutating:
      return "mutating";
  }
  return "unknown";
}

WorkPool::WorkPool(size_t threads, size_t queue_limit, const char* thread_name)
    : queue_limit_(queue_limit), thread_name_(thread_name) {
  for (size_t i = 0; i < std::max<size_t>(1, threads); ++i) {
    threads_.emplace_back(kHandlerStackBytes, [this] { Run(); });
  }
}

WorkPool::~WorkPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (StackThread& t : threads_) t.join();
}

bool WorkPool::Submit(std::function<void()> work) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= queue_limit_) return false;
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
  return true;
}

void WorkPool::Run() {
  pthread_setname_np(pthread_self(), thread_name_);
  while (true) {
    std::function<void()> work;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();
  }
}

Admission::Admission(AdmissionOptions options)
    : options_(options),
      expensive_(options.expensive_threads, options.expensive_queue, "tenure-expensive") {
  LevelOf(PriorityLevel::kLeaderElection).limit = options_.max_leader_election_inflight;
  LevelOf(PriorityLevel::kReadOnly).limit = options_.max_read_only_inflight;
  LevelOf(PriorityLevel::kMutating).limit = options_.max_mutating_inflight;
  if (options_.blocking_threads > 0) {
    blocking_ = std::make_unique<WorkPool>(
        options_.blocking_threads, options_.max_read_only_inflight + options_.max_mutating_inflight,
        "tenure-blocking");
  }
  if (options_.leader_election_threads > 0) {
    leader_election_ = std::make_unique<WorkPool>(
        options_.leader_election_threads, options_.max_leader_election_inflight, "tenure-election");
  }
}

Admission::~Admission() = default;

WorkPool* Admission::PoolFor(const RequestClass& cls) {
  if (cls.expensive) return &expensive_;
  if (cls.level != PriorityLevel::kLeaderElection) return blocking_.get();
  return cls.may_write_without_reading ? nullptr : leader_election_.get();
}

WorkPool* Admission::PostPoolFor(const RequestClass& cls) {
  if (cls.level == PriorityLevel::kLeaderElection && !cls.expensive && leader_election_) {
    return leader_election_.get();
  }
  return PoolFor(cls);
}

void Admission::StartLongRunning(const RequestClass& cls, std::shared_ptr<Responder> responder,
                                 std::function<void(std::shared_ptr<Responder>)> handle) {
  WorkPool* pool = PoolFor(cls);
  if (!pool) return handle(std::move(responder));
  if (!pool->Submit([handle, responder] { RunGuarded(handle, responder); })) {
    LevelOf(cls.level).rejected.fetch_add(1);
    responder->Reply(ErrorResponse(TooManyRequests()));
  }
}

void Admission::Run(const RequestClass& cls, std::shared_ptr<Responder> responder,
                    std::function<void(std::shared_ptr<Responder>)> handle) {
  if (cls.long_running) return StartLongRunning(cls, std::move(responder), std::move(handle));
  Level& level = LevelOf(cls.level);
  if (level.inflight.fetch_add(1) >= level.limit) {
    level.inflight.fetch_sub(1);
    level.rejected.fetch_add(1);
    return responder->Reply(ErrorResponse(TooManyRequests()));
  }
  WorkPool* pool = PoolFor(cls);
  std::function<bool(std::function<void()>)> submit;
  if (WorkPool* posts = PostPoolFor(cls)) {
    submit = [posts](std::function<void()> work) { return posts->Submit(std::move(work)); };
  }
  auto admitted =
      std::make_shared<AdmittedResponder>(std::move(responder), &level.inflight, std::move(submit));
  if (!pool) return handle(std::move(admitted));  // the connection's thread catches
  if (!pool->Submit([handle = std::move(handle), admitted] { RunGuarded(handle, admitted); })) {
    level.rejected.fetch_add(1);
    admitted->Reply(ErrorResponse(TooManyRequests()));
  }
}

void Admission::RunBlocking(const std::shared_ptr<Responder>& responder,
                            std::function<void()> work) {
  if (!blocking_) return work();
  if (!blocking_->Submit([work, responder] {
        RunGuarded([&work](std::shared_ptr<Responder>) { work(); }, responder);
      })) {
    responder->Reply(ErrorResponse(TooManyRequests()));
  }
}

size_t Admission::inflight(PriorityLevel level) const { return LevelOf(level).inflight.load(); }

std::string Admission::RenderMetrics() const {
  constexpr PriorityLevel kLevels[] = {PriorityLevel::kLeaderElection, PriorityLevel::kReadOnly,
                                       PriorityLevel::kMutating};
  std::string out =
      "# HELP tenure_server_inflight_requests Requests being served, by priority level.\n"
      "# TYPE tenure_server_inflight_requests gauge\n";
  for (PriorityLevel level : kLevels) {
    out += "tenure_server_inflight_requests{priority_level=\"" +
           std::string(PriorityLevelName(level)) + "\"} " + std::to_string(inflight(level)) + "\n";
  }
  out +=
      "# HELP tenure_server_rejected_requests_total Requests answered 429 (a limit was reached), "
      "by priority level.\n"
      "# TYPE tenure_server_rejected_requests_total counter\n";
  for (PriorityLevel level : kLevels) {
    out += "tenure_server_rejected_requests_total{priority_level=\"" +
           std::string(PriorityLevelName(level)) + "\"} " + std::to_string(rejected(level)) + "\n";
  }
  return out;
}

uint64_t Admission::rejected(PriorityLevel level) const { return LevelOf(level).rejected.load(); }

}  // namespace tenure::server
