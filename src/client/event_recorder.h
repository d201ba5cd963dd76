// EventRecorder: posts core/v1 Events about objects, best effort, as client-go's event recorder:
// Record never blocks (events queue for one background thread, at most 100; more are dropped
// while the server lags) and an event that cannot be posted is dropped. Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <thread>

#include "tenure/status.h"

namespace tenure::client {

class KubeClient;

// The object an event is about (the Event's involvedObject).
struct EventSubject {
  std::string api_version;  // "coordination.k8s.io/v1"
  std::string kind;         // "Lease"
  std::string namespace_;
  std::string name;
  std::string uid;
};

class EventRecorder {
 public:
  // `component` is the Event's source and reporting component, `instance` its reporting
  // instance (e.g. the identity of the process).
  // `on_error` (optional) hears of an Event that could not be posted (Forbidden names the
  // missing right), once per distinct error; Events are best effort and are not retried.
  EventRecorder(std::shared_ptr<KubeClient> client, std::string component, std::string instance,
                std::function<void(const Status&)> on_error = nullptr);
  ~EventRecorder();  // events not posted yet are dropped
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // `type` is "Normal" or "Warning".
  void Record(const EventSubject& subject, std::string_view type, std::string_view reason,
              std::string_view message);

 private:
  void Send(std::stop_token stop);

  std::shared_ptr<KubeClient> client_;
  std::string component_;
  std::string instance_;
  std::function<void(const Status&)> on_error_;
  std::string reported_error_;  // Send's thread only
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<nlohmann::json> queue_;
  std::jthread thread_;
};

}  // namespace tenure::client
