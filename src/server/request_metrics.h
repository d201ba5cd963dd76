// RequestMetrics: kube-apiserver's request and watch counters on the server's /metrics:
//   apiserver_request_total{verb,code}          every answered request, by kube's metric verb
//                                               (GET, LIST, WATCH, POST, PUT, PATCH, APPLY,
//                                               DELETE, DELETECOLLECTION; a non-resource
//                                               request by its method) and status code;
//   apiserver_watch_events_total{group,version,kind}  events sent to watchers (each watcher
//                                               counts: one write seen by 4 watches is 4);
//   apiserver_longrunning_requests{verb="WATCH"}  watches open now.
// Counting is lock-free (relaxed atomics in fixed tables); rendering reads them at scrape time.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"

namespace tenure::server {

struct HttpRequest;
class Responder;
struct RequestInfo;

class RequestMetrics {
 public:
  RequestMetrics();

  // kube's metric verb of a request ("LIST", "APPLY", "GET" for GET /version).
  static std::string_view MetricVerb(const RequestInfo& info, const HttpRequest& request);
  // Counts the request with the status it is answered with (Responder::OnAnswered: what the
  // client is sent, the server's own 504 included).
  void CountAnswer(std::string_view verb, Responder& responder);

  // The index CountWatchEvents takes for `kind` (found once per watch, not per event).
  size_t KindIndex(const api::KindInfo& kind) const;
  void CountWatchEvents(size_t kind_index, const std::string& version, uint64_t events);
  // A watch started or ended (a WatchSession's life).
  void WatchOpened() { watches_open_.fetch_add(1, std::memory_order_relaxed); }
  void WatchClosed() { watches_open_.fetch_sub(1, std::memory_order_relaxed); }

  std::string Render() const;

  static constexpr int kLowestCode = 100;
  static constexpr int kCodes = 500;  // 100..599; anything else counts as 500
  using CodeCounts = std::array<std::atomic<uint64_t>, kCodes>;

 private:
  std::vector<std::shared_ptr<CodeCounts>> requests_;  // by verb (kVerbs' order)
  // By kind (api::AllKinds' order) and version (the kind's versions' order).
  std::vector<std::vector<std::unique_ptr<std::atomic<uint64_t>>>> watch_events_;
  std::atomic<int64_t> watches_open_{0};
};

}  // namespace tenure::server
