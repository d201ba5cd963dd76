// StartWatch and WatchSession: one watch request streamed as Kubernetes watch events.
#include "server/watch_session.h"

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>

#include "api/status_object.h"
#include "server/object_head_cache.h"
#include "server/object_text.h"
#include "server/query_options.h"

namespace tenure::server {

using nlohmann::json;

namespace {

const char* EventTypeName(store::Event::Type type) {
  switch (type) {
    case store::Event::Type::kCreated:
      return "ADDED";
    case store::Event::Type::kUpdated:
      return "MODIFIED";
    case store::Event::Type::kDeleted:
      return "DELETED";
  }
  return "MODIFIED";
}

class WatchSession : public std::enable_shared_from_this<WatchSession> {
 public:
  WatchSession(const void* store_id, std::shared_ptr<Clock> clock, WatchOptions options)
      : store_id_(store_id), clock_(std::move(clock)), options_(std::move(options)) {
    if (options_.metrics) {
      kind_index_ = options_.metrics->KindIndex(*options_.kind);
      options_.metrics->WatchOpened();
    }
  }
  ~WatchSession() {
    if (options_.metrics) options_.metrics->WatchClosed();
  }
  WatchSession(const WatchSession&) = delete;
  WatchSession& operator=(const WatchSession&) = delete;

  void Attach(std::shared_ptr<ResponseStream> stream) { stream_ = std::move(stream); }

  // Sends one event line; false when the client has gone. `bounded` false for the initial state.
  bool Send(const char* type, const std::string& stored, int64_t revision, bool bounded = true) {
    std::string line = "{\"type\":\"";
    line += type;
    line += "\",\"object\":";
    line +=
        RenderObject(options_.format, *options_.kind, options_.version, stored, revision, *clock_);
    line += "}\n";
    if (stream_->Write(std::move(line), bounded)) {
      if (options_.metrics) options_.metrics->CountWatchEvents(kind_index_, options_.version, 1);
      return true;
    }
    if (stream_->overflowed()) EndTooSlow();
    return false;
  }

  // The client does not read its events fast enough: as kube-apiserver does with such a
  // watcher, end it, here with a 410 so that the client relists instead of resuming a watch
  // that would fall behind again.
  void EndTooSlow() {
    Status expired(Reason::kGone,
                   "the watcher read too slowly: more than the server's stream buffer waited "
                   "unsent; list again");
    stream_->Close(ErrorLine(expired));
  }

  static std::string ErrorLine(const Status& status) {
    return json{{"type", "ERROR"}, {"object", api::StatusToJson(status)}}.dump(
               -1, ' ', false, json::error_handler_t::replace) +
           "\n";
  }

  void OnEvents(const std::vector<store::Event>& events) {
    for (const auto& e : events) {
      last_revision_.store(e.kv.mod_revision);
      if (e.type == store::Event::Type::kDeleted && e.kv.value.empty()) {
        // etcd no longer had the deleted object (compacted): there is nothing to send.
        EndUnknown("the object deleted at revision", e.kv.mod_revision);
        return;
      }
      if (options_.filter.empty()) {
        if (!Send(EventTypeName(e.type), e.kv.value, e.kv.mod_revision)) return;
        continue;
      }
      if (!SendFiltered(e)) return;
    }
  }

  // A watch with a selector sees an object enter its selection as ADDED and leave it as DELETED
  // (the object as it was, at the event's resourceVersion), as kube-apiserver's watch cache
  // does, so that an informer's cache holds exactly the selected objects. False when the
  // stream has ended.
  bool SendFiltered(const store::Event& e) {
    using Type = store::Event::Type;
    const bool now = e.type != Type::kDeleted && Selects(e.kv);
    bool before = false;
    if (e.type == Type::kDeleted) {
      before = Selects(e.kv);  // the value it had when deleted
    } else if (e.type == Type::kUpdated && options_.filter.SelectsByIdentityOnly()) {
      before = now;  // an update changes neither the name nor the namespace
    } else if (e.type == Type::kUpdated) {
      if (!e.previous) {
        // Without the value the write replaced, whether the object left the selection is
        // unknown: rather than guess, the client lists again.
        EndUnknown("the value an object held before revision", e.kv.mod_revision);
        return false;
      }
      before = Selects(*e.previous);
    }
    if (now) return Send(before ? "MODIFIED" : "ADDED", e.kv.value, e.kv.mod_revision);
    if (!before) return true;
    const std::string& last = e.type == Type::kDeleted ? e.kv.value : e.previous->value;
    return Send("DELETED", last, e.kv.mod_revision);
  }

  // Ends the watch with 410 (the client lists again, as after an expired resourceVersion): the
  // store no longer knows `what` `revision` (etcd compacted it), which this watch needs.
  void EndUnknown(const char* what, int64_t revision) {
    stream_->Close(
        ErrorLine(Status(Reason::kGone, std::string(what) + " " + std::to_string(revision) +
                                            " is no longer known to the store; "
                                            "list again")));
  }

  // Whether the selector selects `kv`. A selector of the head alone reads it through the
  // thread's cache: the store's other filtered watches read the same values.
  bool Selects(const store::KeyValue& kv) {
    if (options_.filter.ReadsOnlyHead()) {
      if (const api::ObjectHead* head = ObjectHeadCache::OfThisThread().Get(store_id_, kv)) {
        return options_.filter.MatchesHead(*head);
      }
    }
    return options_.filter.Matches(*options_.kind, kv.value);
  }

  void SendBookmark() { SendBookmarkAt(last_revision_.load(), /*initial_events_end=*/false); }

  // A BOOKMARK: an empty object of the watched kind with only its resourceVersion (and, at the
  // end of a watch-list's initial events, the annotation that says so).
  // The initial-events-end bookmark follows the unbounded initial state and is unbounded too: a
  // large collection must not end the watch-list as a slow reader.
  void SendBookmarkAt(int64_t revision, bool initial_events_end) {
    json metadata = {{"resourceVersion", std::to_string(revision)}};
    if (initial_events_end) metadata["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    json object = {{"kind", std::string(options_.kind->kind)},
                   {"apiVersion", options_.kind->api_version(options_.version)},
                   {"metadata", std::move(metadata)}};
    if (!stream_->Write(json{{"type", "BOOKMARK"}, {"object", std::move(object)}}.dump() + "\n",
                        /*bounded=*/!initial_events_end) &&
        stream_->overflowed()) {
      EndTooSlow();
    }
  }

  void Fail(const Status& status) { stream_->Close(ErrorLine(status)); }

  void SendExpired(const Status& status) {
    stream_->Close(ErrorLine(Status(Reason::kGone, status.message())));
  }

  // Keeps the store watch alive while the stream is open; drops it when the stream ends.
  void Keep(std::unique_ptr<store::WatchHandle> handle) {
    std::lock_guard lock(mu_);
    if (ended_) return;  // destroyed on return, outside any store lock
    handle_ = std::move(handle);
  }
  void End() {
    std::unique_ptr<store::WatchHandle> handle;
    {
      std::lock_guard lock(mu_);
      ended_ = true;
      handle = std::move(handle_);
    }
  }

  void set_last_revision(int64_t revision) { last_revision_.store(revision); }

 private:
  const void* store_id_;  // names the store's values in ObjectHeadCache
  std::shared_ptr<Clock> clock_;
  WatchOptions options_;
  size_t kind_index_ = 0;  // for options_.metrics
  std::shared_ptr<ResponseStream> stream_;
  std::atomic<int64_t> last_revision_{0};
  std::mutex mu_;
  bool ended_ = false;
  std::unique_ptr<store::WatchHandle> handle_;
};

std::chrono::seconds DefaultTimeout() {
  thread_local std::mt19937 rng(std::random_device{}());
  return std::chrono::seconds(1800 + rng() % 1800);
}

}  // namespace

void StartWatch(std::shared_ptr<store::Store> store, std::shared_ptr<Clock> clock,
                WatchOptions options, std::shared_ptr<Responder> responder) {
  auto timeout = options.timeout.value_or(DefaultTimeout());
  bool bookmarks = options.bookmarks;
  auto interval = bookmarks ? options.bookmark_interval : std::chrono::milliseconds(0);
  std::string prefix = options.prefix;
  bool initial = options.send_initial_state;
  int64_t from = options.from_revision;
  auto session = std::make_shared<WatchSession>(store.get(), clock, options);
  std::weak_ptr<WatchSession> weak = session;
  auto stream = responder->Stream(200, "application/json",
                                  std::chrono::steady_clock::now() + timeout, interval, [weak] {
                                    if (auto s = weak.lock()) s->SendBookmark();
                                  });
  session->Attach(stream);
  stream->OnClose([session] { session->End(); });

  if (initial) {
    auto listed = store->List(prefix);
    if (!listed.ok()) {
      session->SendExpired(listed.status());
      return;
    }
    if (from > listed->revision) {
      // NotOlderThan a version the store has not reached.
      Status too_large = TooLargeResourceVersion(from, listed->revision);
      too_large.set_details({.retry_after_seconds = 1});
      session->Fail(too_large);
      return;
    }
    for (const auto& kv : listed->items) {
      if (!options.filter.Matches(*options.kind, kv.value)) continue;
      if (!session->Send("ADDED", kv.value, kv.mod_revision, /*bounded=*/false)) return;
    }
    from = listed->revision;
    if (options.initial_events_end_bookmark) session->SendBookmarkAt(from, true);
  }
  session->set_last_revision(from);
  auto handle = store->Watch(prefix, from, [weak](const std::vector<store::Event>& events) {
    if (auto s = weak.lock()) s->OnEvents(events);
  });
  if (!handle.ok()) {
    session->SendExpired(handle.status());
    return;
  }
  session->Keep(std::move(*handle));
}

}  // namespace tenure::server
