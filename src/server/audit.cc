// Auditor: audit.k8s.io/v1 Events for the requests the policy records, written as JSON lines.
#include "server/audit.h"

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>

#include "api/time.h"
#include "server/object_meta.h"

namespace tenure::server {

using nlohmann::json;

namespace {

json UserJson(const UserInfo& user) {
  json out = json::object();
  if (!user.name.empty()) out["username"] = user.name;
  if (!user.uid.empty()) out["uid"] = user.uid;
  if (!user.groups.empty()) out["groups"] = user.groups;
  if (!user.extra.empty()) out["extra"] = user.extra;
  return out;
}

// A body as JSON when it is a JSON object; absent otherwise (protobuf, text).
std::optional<json> BodyJson(const std::string& body, bool omit_managed_fields) {
  if (body.empty() || body.front() != '{') return std::nullopt;
  json parsed = json::parse(body, nullptr, false);
  if (!parsed.is_object()) return std::nullopt;
  if (omit_managed_fields) {
    if (auto meta = parsed.find("metadata"); meta != parsed.end() && meta->is_object()) {
      meta->erase("managedFields");
    }
  }
  return parsed;
}

}  // namespace

std::vector<std::string> SourceIps(const HttpRequest& request) {
  std::vector<std::string> ips = HeaderValues(request.header("x-forwarded-for"));
  for (std::string& real : HeaderValues(request.header("x-real-ip")))
    ips.push_back(std::move(real));
  if (!request.remote_address.empty() && (ips.empty() || ips.back() != request.remote_address)) {
    ips.push_back(request.remote_address);
  }
  return ips;
}

class AuditedRequest {
 public:
  AuditedRequest(AuditDecision decision, json event, AuditLogFile& log,
                 std::shared_ptr<Clock> clock)
      : decision_(std::move(decision)),
        event_(std::move(event)),
        log_(log),
        clock_(std::move(clock)) {}

  const AuditDecision& decision() const { return decision_; }

  void Annotate(const std::string& key, const std::string& value) {
    std::lock_guard<std::mutex> lock(mu_);
    event_["annotations"][key] = value;
  }

  // Writes the event at `stage` unless the policy omits it.
  void Emit(AuditStage stage) {
    if (std::find(decision_.omit_stages.begin(), decision_.omit_stages.end(), stage) !=
        decision_.omit_stages.end()) {
      return;
    }
    std::string line;
    {
      std::lock_guard<std::mutex> lock(mu_);
      event_["stage"] = AuditStageName(stage);
      event_["stageTimestamp"] = api::FormatMicroTime(clock_->wall_now());
      line = event_.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    log_.Write(line);
  }

  // Records the answer (status and, at RequestResponse, the body) and writes ResponseComplete
  // once.
  void Complete(const HttpResponse& response) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (completed_) return;
      completed_ = true;
      json status = {{"metadata", json::object()}, {"code", response.status}};
      if (response.status >= 400) {
        if (auto body = BodyJson(response.body, false)) {
          for (const char* key : {"status", "message", "reason"}) {
            if (body->contains(key)) status[key] = (*body)[key];
          }
        }
      }
      event_["responseStatus"] = std::move(status);
      if (event_.contains("objectRef") && response.status < 400) {
        if (auto body = BodyJson(response.body, decision_.omit_managed_fields)) {
          // As kube's LogResponseObject: the object written names the reference (a create's
          // name comes only from it) and gives its uid and resourceVersion.
          json& ref = event_["objectRef"];
          const json& meta = (*body)["metadata"];
          if (meta.is_object() && body->value("kind", "") != "Status" &&
              body->value("kind", "").find("List") == std::string::npos) {
            if (!ref.contains("name") && meta.contains("name")) ref["name"] = meta["name"];
            if (meta.contains("uid")) ref["uid"] = meta["uid"];
            if (meta.contains("resourceVersion")) ref["resourceVersion"] = meta["resourceVersion"];
          }
          if (decision_.level == AuditLevel::kRequestResponse) {
            event_["responseObject"] = std::move(*body);
          }
        }
      }
    }
    Emit(AuditStage::kResponseComplete);
  }

  void Started(int status) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      event_["responseStatus"] = {{"metadata", json::object()}, {"code", status}};
    }
    Emit(AuditStage::kResponseStarted);
  }

  // A stream's end: ResponseComplete with the status it started with.
  void StreamEnded() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (completed_) return;
      completed_ = true;
    }
    Emit(AuditStage::kResponseComplete);
  }

 private:
  const AuditDecision decision_;
  std::mutex mu_;
  json event_;
  bool completed_ = false;
  AuditLogFile& log_;
  std::shared_ptr<Clock> clock_;
};

namespace {

// A watch's stream: its end (the last reference gone) completes the event.
class AuditedStream final : public ResponseStream {
 public:
  AuditedStream(std::shared_ptr<ResponseStream> inner, std::shared_ptr<AuditedRequest> event)
      : inner_(std::move(inner)), event_(std::move(event)) {}
  ~AuditedStream() override { event_->StreamEnded(); }
  bool Write(std::string chunk, bool bounded) override {
    return inner_->Write(std::move(chunk), bounded);
  }
  bool overflowed() const override { return inner_->overflowed(); }
  void Close(std::string last) override { inner_->Close(std::move(last)); }
  bool closed() const override { return inner_->closed(); }
  void OnClose(std::function<void()> on_close) override { inner_->OnClose(std::move(on_close)); }

 private:
  std::shared_ptr<ResponseStream> inner_;
  std::shared_ptr<AuditedRequest> event_;
};

class AuditedResponder final : public Responder {
 public:
  AuditedResponder(std::shared_ptr<Responder> inner, std::shared_ptr<AuditedRequest> event)
      : inner_(std::move(inner)), event_(std::move(event)) {}
  void Reply(HttpResponse response) override {
    event_->Complete(response);
    inner_->Reply(std::move(response));
  }
  void ReplyWith(std::function<HttpResponse()> make) override {
    inner_->ReplyWith([make = std::move(make), event = event_] {
      HttpResponse response = make();
      event->Complete(response);
      return response;
    });
  }
  void Post(std::function<void()> work) override { inner_->Post(std::move(work)); }
  void AnswerBy(std::chrono::steady_clock::time_point deadline) override {
    inner_->AnswerBy(deadline);
  }
  std::shared_ptr<ResponseStream> Stream(int status, std::string content_type,
                                         std::chrono::steady_clock::time_point deadline,
                                         std::chrono::milliseconds idle_interval,
                                         std::function<void()> idle) override {
    event_->Started(status);
    auto stream =
        inner_->Stream(status, std::move(content_type), deadline, idle_interval, std::move(idle));
    if (!stream) return stream;
    return std::make_shared<AuditedStream>(std::move(stream), event_);
  }

 private:
  std::shared_ptr<Responder> inner_;
  std::shared_ptr<AuditedRequest> event_;
};

}  // namespace

Auditor::Auditor(AuditPolicy policy, std::unique_ptr<AuditLogFile> log,
                 std::shared_ptr<Clock> clock)
    : policy_(std::move(policy)), log_(std::move(log)), clock_(std::move(clock)) {}

Auditor::~Auditor() = default;

std::shared_ptr<AuditedRequest> Auditor::Begin(const HttpRequest& request,
                                               const AuthorizationAttributes& attributes,
                                               const UserInfo& requester, bool authenticated) {
  AuditDecision decision = DecideAudit(policy_, attributes);
  if (decision.level == AuditLevel::kNone) return nullptr;
  json event = {{"kind", "Event"},
                {"apiVersion", "audit.k8s.io/v1"},
                {"level", AuditLevelName(decision.level)},
                {"auditID", NewUid()},
                {"requestURI", request.target},
                {"verb", attributes.verb},
                {"user", authenticated ? UserJson(requester) : json::object()},
                {"sourceIPs", SourceIps(request)},
                {"requestReceivedTimestamp", api::FormatMicroTime(clock_->wall_now())}};
  if (authenticated && !(attributes.user == requester)) {
    event["impersonatedUser"] = UserJson(attributes.user);
  }
  if (std::string agent = request.header("user-agent"); !agent.empty()) event["userAgent"] = agent;
  if (attributes.resource_request) {
    json ref = {{"resource", attributes.resource}};
    if (!attributes.namespace_.empty()) ref["namespace"] = attributes.namespace_;
    if (!attributes.name.empty()) ref["name"] = attributes.name;
    ref["apiGroup"] = attributes.api_group;
    if (!attributes.api_version.empty()) ref["apiVersion"] = attributes.api_version;
    if (!attributes.subresource.empty()) ref["subresource"] = attributes.subresource;
    event["objectRef"] = std::move(ref);
    if (decision.level >= AuditLevel::kRequest) {
      if (auto body = BodyJson(request.body, decision.omit_managed_fields)) {
        event["requestObject"] = std::move(*body);
      }
    }
  }
  auto audited =
      std::make_shared<AuditedRequest>(std::move(decision), std::move(event), *log_, clock_);
  audited->Emit(AuditStage::kRequestReceived);
  return audited;
}

void Auditor::Authorized(AuditedRequest* event, bool allowed, const std::string& reason) {
  if (event == nullptr) return;
  event->Annotate("authorization.k8s.io/decision", allowed ? "allow" : "forbid");
  event->Annotate("authorization.k8s.io/reason", reason);
}

std::shared_ptr<Responder> Auditor::Watch(std::shared_ptr<AuditedRequest> event,
                                          std::shared_ptr<Responder> responder) {
  if (!event) return responder;
  return std::make_shared<AuditedResponder>(std::move(responder), std::move(event));
}

}  // namespace tenure::server
