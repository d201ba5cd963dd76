// EventRecorder: best-effort core/v1 Events, queued and posted by one background thread.
#include "client/event_recorder.h"

#include "api/api_paths.h"
#include "api/kinds.h"
#include "api/time.h"
#include "client/kube_client.h"
#include "tenure/log.h"

namespace tenure::client {

using nlohmann::json;

namespace {
constexpr size_t kMaxQueued = 100;
}

EventRecorder::EventRecorder(std::shared_ptr<KubeClient> client, std::string component,
                             std::string instance, std::function<void(const Status&)> on_error)
    : client_(std::move(client)),
      component_(std::move(component)),
      instance_(std::move(instance)),
      on_error_(std::move(on_error)) {}

EventRecorder::~EventRecorder() {
  if (thread_.joinable()) {
    thread_.request_stop();
    cv_.notify_all();
    thread_.join();
  }
}

void EventRecorder::Record(const EventSubject& subject, std::string_view type,
                           std::string_view reason, std::string_view message) {
  std::string now = api::FormatTime(std::chrono::system_clock::now());
  json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"generateName", subject.name + "."}, {"namespace", subject.namespace_}}},
      {"involvedObject",
       {{"apiVersion", subject.api_version},
        {"kind", subject.kind},
        {"name", subject.name},
        {"namespace", subject.namespace_},
        {"uid", subject.uid}}},
      {"reason", std::string(reason)},
      {"message", std::string(message)},
      {"type", std::string(type)},
      {"source", {{"component", component_}}},
      {"firstTimestamp", now},
      {"lastTimestamp", now},
      {"count", 1},
      {"reportingComponent", component_},
      {"reportingInstance", instance_}};
  {
    std::lock_guard lock(mu_);
    if (queue_.size() < kMaxQueued) queue_.push_back(std::move(event));
    if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { Send(stop); });
  }
  cv_.notify_all();
}

void EventRecorder::Send(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, stop, [&] { return !queue_.empty(); });
    if (queue_.empty()) return;
    json event = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::string path = api::CollectionPath(api::EventKind(), "v1",
                                           event["metadata"]["namespace"].get<std::string>());
    auto posted = client_->Call("POST", path, &event, std::chrono::seconds(5));
    if (posted.ok()) {
      reported_error_.clear();
    } else if (posted.status().message() != reported_error_) {
      reported_error_ = posted.status().message();
      Log(LogLevel::kWarning, "events", "cannot post an Event",
          {{"path", path}, {"error", posted.status().ToString()}});
      if (on_error_) on_error_(posted.status());
    }
    lock.lock();
  }
}

}  // namespace tenure::client
