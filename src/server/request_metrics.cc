// RequestMetrics: apiserver_request_total and apiserver_watch_events_total, counted lock-free.
#include "server/request_metrics.h"

#include <algorithm>

#include "server/http_server.h"
#include "server/request_info.h"

namespace tenure::server {
namespace {

constexpr std::string_view kVerbs[] = {
    "GET",  "LIST",    "WATCH", "POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION",
    "HEAD", "OPTIONS", "OTHER"};

size_t VerbIndex(std::string_view verb) {
  const auto* it = std::find(std::begin(kVerbs), std::end(kVerbs), verb);
  return it == std::end(kVerbs) ? std::size(kVerbs) - 1
                                : static_cast<size_t>(it - std::begin(kVerbs));
}

}  // namespace

RequestMetrics::RequestMetrics() {
  for (size_t i = 0; i < std::size(kVerbs); ++i)
    requests_.push_back(std::make_shared<CodeCounts>());
  for (const api::KindInfo* kind : api::AllKinds()) {
    auto& versions = watch_events_.emplace_back();
    for (size_t v = 0; v < kind->versions.size(); ++v) {
      versions.push_back(std::make_unique<std::atomic<uint64_t>>(0));
    }
  }
}

std::string_view RequestMetrics::MetricVerb(const RequestInfo& info, const HttpRequest& request) {
  if (!info.is_resource_request || !info.verb) {
    std::string_view method = request.method;
    return kVerbs[VerbIndex(method)];
  }
  switch (*info.verb) {
    case Verb::kGet:
      return "GET";
    case Verb::kList:
      return "LIST";
    case Verb::kWatch:
      return "WATCH";
    case Verb::kCreate:
      return "POST";
    case Verb::kUpdate:
      return "PUT";
    case Verb::kPatch:
      return request.header("content-type").starts_with("application/apply-patch") ? "APPLY"
                                                                                   : "PATCH";
    case Verb::kDelete:
      return "DELETE";
    case Verb::kDeleteCollection:
      return "DELETECOLLECTION";
  }
  return "OTHER";
}

void RequestMetrics::CountAnswer(std::string_view verb, Responder& responder) {
  // The counts are shared with the callback: a late answer may outlive the server's metrics.
  responder.OnAnswered([counts = requests_[VerbIndex(verb)]](int code) {
    if (code < kLowestCode || code >= kLowestCode + kCodes) code = 500;
    (*counts)[static_cast<size_t>(code - kLowestCode)].fetch_add(1, std::memory_order_relaxed);
  });
}

size_t RequestMetrics::KindIndex(const api::KindInfo& kind) const {
  const auto& kinds = api::AllKinds();
  return static_cast<size_t>(std::find(kinds.begin(), kinds.end(), &kind) - kinds.begin());
}

void RequestMetrics::CountWatchEvents(size_t kind_index, const std::string& version,
                                      uint64_t events) {
  if (kind_index >= watch_events_.size()) return;
  const auto& versions = api::AllKinds()[kind_index]->versions;
  auto it = std::find(versions.begin(), versions.end(), version);
  if (it == versions.end()) return;
  watch_events_[kind_index][static_cast<size_t>(it - versions.begin())]->fetch_add(
      events, std::memory_order_relaxed);
}

std::string RequestMetrics::Render() const {
  std::string out =
      "# HELP apiserver_request_total Requests answered, by verb and HTTP status code.\n"
      "# TYPE apiserver_request_total counter\n";
  for (size_t v = 0; v < requests_.size(); ++v) {
    for (int c = 0; c < kCodes; ++c) {
      uint64_t n = (*requests_[v])[static_cast<size_t>(c)].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += "apiserver_request_total{code=\"" + std::to_string(c + kLowestCode) + "\",verb=\"" +
             std::string(kVerbs[v]) + "\"} " + std::to_string(n) + "\n";
    }
  }
  out +=
      "# HELP apiserver_watch_events_total Events sent to watch clients (each watcher "
      "counted).\n"
      "# TYPE apiserver_watch_events_total counter\n";
  const auto& kinds = api::AllKinds();
  for (size_t k = 0; k < watch_events_.size(); ++k) {
    for (size_t v = 0; v < watch_events_[k].size(); ++v) {
      uint64_t n = watch_events_[k][v]->load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += "apiserver_watch_events_total{group=\"" + std::string(kinds[k]->group) + "\",kind=\"" +
             std::string(kinds[k]->kind) + "\",version=\"" + std::string(kinds[k]->versions[v]) +
             "\"} " + std::to_string(n) + "\n";
    }
  }
  out +=
      "# HELP apiserver_longrunning_requests Long-running requests open now (watches).\n"
      "# TYPE apiserver_longrunning_requests gauge\n"
      "apiserver_longrunning_requests{verb=\"WATCH\"} " +
      std::to_string(watches_open_.load(std::memory_order_relaxed)) + "\n";
  return out;
}

}  // namespace tenure::server
