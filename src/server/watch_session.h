// One watch request: streams store events as Kubernetes watch events, one JSON object per line.
//
// Without a resourceVersion (or "0") it first sends the current objects as ADDED, then changes
// after that list; with one, every change after it (410 Expired as an ERROR event when the
// history no longer reaches back that far). BOOKMARK events carry the last revision delivered
// when allowWatchBookmarks is set. The stream ends at timeoutSeconds or when the client leaves.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "api/kinds.h"
#include "server/http_server.h"
#include "server/request_metrics.h"
#include "server/response_format.h"
#include "store/store.h"
#include "tenure/clock.h"

namespace tenure::server {

struct WatchOptions {
  const api::KindInfo* kind = nullptr;
  std::string version;
  std::string prefix;  // store key prefix (kind + namespace)
  ObjectFilter filter;
  ResponseFormat format;
  bool send_initial_state = false;
  // Watch-list: after the initial state, a BOOKMARK annotated k8s.io/initial-events-end (asked
  // with sendInitialEvents=true and allowWatchBookmarks=true). A from_revision the store has not
  // reached ends such a watch with a 504 ERROR event.
  bool initial_events_end_bookmark = false;
  int64_t from_revision = 0;
  bool bookmarks = false;
  std::optional<std::chrono::seconds> timeout;  // default: 30 to 60 minutes, as kube-apiserver
  std::chrono::milliseconds bookmark_interval{std::chrono::seconds(60)};
  // Counts the events sent (apiserver_watch_events_total); null: not counted.
  std::shared_ptr<RequestMetrics> metrics;
};

void StartWatch(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock,
                WatchOptions options, std::shared_ptr<Responder> responder);

}  // namespace tenure::server
