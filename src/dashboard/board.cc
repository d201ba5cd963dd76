// Board: the dashboard's model of a cluster's leader elections, and its JSON views.
#include "dashboard/board.h"

#include <algorithm>
#include <cctype>

#include "api/codec.h"
#include "api/url.h"
#include "api/validation.h"
#include "client/kube_client.h"
#include "coordination/ranking.h"
#include "coordination/server_identity.h"
#include "tenure/log.h"

namespace tenure::dashboard {

using nlohmann::json;

namespace {

constexpr auto kCallTimeout = std::chrono::seconds(5);
constexpr size_t kEventsShown = 30;
// The coordinated election controller's own Lease (tenure serve and kube-apiserver).
const LeaseKey kControllerLease{"kube-system", "leader-election-controller"};

std::optional<LeaseKey> KeyOf(const json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return std::nullopt;
  auto name = meta->find("name");
  if (name == meta->end() || !name->is_string()) return std::nullopt;
  std::string ns;
  if (auto n = meta->find("namespace"); n != meta->end() && n->is_string()) ns = *n;
  return LeaseKey{ns, name->get<std::string>()};
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

json TimeOrNull(const std::optional<api::Timestamp>& t) {
  return t ? json(api::FormatMicroTime(*t)) : json(nullptr);
}

// What the server's /metrics text says about it (families tenure serve and kube-apiserver
// share, and tenure's own store families).
json SummarizeMetrics(std::string_view text) {
  json out = json::object();
  double requests = 0, watch_events = 0, watches = 0;
  bool any_requests = false, any_watch_events = false, any_watches = false;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.rfind(' ');
    if (space == std::string_view::npos) continue;
    std::string_view name = line.substr(0, space);
    double value = std::strtod(std::string(line.substr(space + 1)).c_str(), nullptr);
    auto family = [&](std::string_view f) {
      return name.substr(0, f.size()) == f && (name.size() == f.size() || name[f.size()] == '{');
    };
    if (family("apiserver_request_total")) {
      requests += value, any_requests = true;
    } else if (family("apiserver_watch_events_total")) {
      watch_events += value, any_watch_events = true;
    } else if (family("apiserver_longrunning_requests") &&
               name.find("verb=\"WATCH\"") != std::string_view::npos) {
      // tenure's one series, or kube-apiserver's by resource and scope: their sum.
      watches += value, any_watches = true;
    } else if (name == "tenure_store_revision") {
      out["revision"] = static_cast<int64_t>(value);
    } else if (family("tenure_store_info")) {
      size_t q = name.find("store=\"");
      if (q != std::string_view::npos) {
        size_t close = name.find('"', q + 7);
        if (close != std::string_view::npos)
          out["store"] = std::string(name.substr(q + 7, close - q - 7));
      }
    }
  }
  if (any_requests) out["requests"] = static_cast<int64_t>(requests);
  if (any_watch_events) out["watchEvents"] = static_cast<int64_t>(watch_events);
  if (any_watches) out["watchesOpen"] = static_cast<int64_t>(watches);
  return out;
}

json EventJson(const api::Event& e) {
  std::optional<api::Timestamp> last = e.last_timestamp;
  if (!last) last = e.event_time;
  if (!last && e.series) last = e.event_time;
  return {{"type", e.type},
          {"reason", e.reason},
          {"message", e.message},
          {"count", e.count},
          {"first", TimeOrNull(e.first_timestamp ? e.first_timestamp : e.event_time)},
          {"last", TimeOrNull(last)},
          {"source", !e.reporting_component.empty() ? e.reporting_component : e.source.component}};
}

}  // namespace

Board::Board(BoardOptions options) : options_(std::move(options)) {}

Board::~Board() { Stop(); }

Result<std::unique_ptr<Board>> Board::Detached(BoardOptions options) {
  std::unique_ptr<Board> board(new Board(std::move(options)));
  if (Status s = board->OpenArchive(); !s.ok()) return s;
  return board;
}

Result<std::unique_ptr<Board>> Board::Start(std::shared_ptr<client::KubeClient> client,
                                            BoardOptions options) {
  std::unique_ptr<Board> board(new Board(std::move(options)));
  if (Status s = board->OpenArchive(); !s.ok()) return s;
  board->client_ = std::move(client);
  Board* self = board.get();
  // Subscribed once the board is complete: the handlers may run at once.
  auto apply = [self](const std::string& type, const json& object) {
    self->ApplyLease(type, object);
  };
  if (board->options_.lease_feed) {
    auto fed = board->options_.lease_feed(apply);
    if (!fed.ok()) return fed.status();
    board->leases_ = std::move(*fed);
  } else {
    board->leases_ =
        board->client_->WatchCollection("/apis/coordination.k8s.io/v1/leases", std::move(apply));
  }
  board->WatchCandidates();
  board->StartThreads();
  return board;
}

void Board::WatchCandidates() {
  {
    std::lock_guard lock(mu_);
    if (!candidate_version_.empty() || !watching_) return;
  }
  // Discovery says which version is served (none: the server does not serve LeaseCandidates,
  // or not yet; the refresher asks again).
  auto version = client::ServedLeaseCandidateVersion(*client_, kCallTimeout);
  if (!version.ok()) return;
  auto subscription = client_->WatchCollection(
      "/apis/coordination.k8s.io/" + *version + "/leasecandidates",
      [this](const std::string& type, const json& object) { ApplyCandidate(type, object); });
  std::lock_guard lock(mu_);
  if (!watching_) return;  // stopped meanwhile: the subscription ends here
  candidate_version_ = *version;
  lease_candidates_ = std::move(subscription);
}

Status Board::OpenArchive() {
  if (options_.archive_path.empty()) return Status::Ok();
  auto archive = TermArchive::Open(options_.archive_path, options_.archive);
  if (!archive.ok()) {
    return Status(archive.status().reason(),
                  "the term history " + options_.archive_path + ": " + archive.status().message());
  }
  archive_ = std::move(*archive);
  if (archive_->skipped_lines() > 0) {
    Log(LogLevel::kWarning, "dashboard", "skipped unreadable lines of the term history",
        {{"file", archive_->path()}, {"lines", std::to_string(archive_->skipped_lines())}});
  }
  std::lock_guard lock(mu_);
  for (auto& [key, terms] : archive_->TakeLoaded()) entries_[key].ledger.Restore(std::move(terms));
  return Status::Ok();
}

void Board::StartThreads() {
  ticker_ = std::jthread([this](std::stop_token stop) { RunTicker(stop); });
  refresher_ = std::jthread([this](std::stop_token stop) { RunRefresher(stop); });
}

void Board::Stop() {
  // Destroying a subscription ends its deliveries.
  std::unique_ptr<client::Subscription> leases, candidates;
  {
    std::lock_guard lock(mu_);
    leases = std::move(leases_);
    candidates = std::move(lease_candidates_);
    watching_ = false;
  }
  leases.reset();
  candidates.reset();
  for (std::jthread* thread : {&ticker_, &refresher_}) {
    if (thread->joinable()) {
      thread->request_stop();
      thread->join();
    }
  }
  // Every open term with its newest renewal, so that a restart continues it; then the file is
  // free for the next board.
  WriteArchive(/*all_open=*/true);
  std::lock_guard archive_lock(archive_mu_);
  archive_.reset();
}

// A background loop survives a surprise in the data (an exception from a JSON library, say):
// it is logged and the loop goes on.
template <typename Step>
void Guarded(const char* what, Step&& step) {
  try {
    step();
  } catch (const std::exception& e) {
    Log(LogLevel::kError, "dashboard", what, {{"error", e.what()}});
  }
}

void Board::RunTicker(std::stop_token stop) {
  auto next_write = std::chrono::steady_clock::now() + options_.refresh;
  std::mutex wait_mu;
  std::condition_variable_any wait_cv;
  while (!stop.stop_requested()) {
    Guarded("the board's tick failed", [&] { Tick(); });
    if (std::chrono::steady_clock::now() >= next_write) {
      Guarded("writing the term history failed", [&] { WriteArchive(/*all_open=*/false); });
      next_write = std::chrono::steady_clock::now() + options_.refresh;
    }
    std::unique_lock lock(wait_mu);
    wait_cv.wait_for(lock, stop, options_.tick, [] { return false; });
  }
}

void Board::RunRefresher(std::stop_token stop) {
  // A Lease coming into view asks for a refresh at once, but at most twice a second.
  constexpr auto kSoonest = std::chrono::milliseconds(500);
  while (!stop.stop_requested()) {
    const auto started = std::chrono::steady_clock::now();
    Guarded("refreshing the server summary failed", [&] { Refresh(stop); });
    std::unique_lock lock(mu_);
    wake_.wait_until(lock, stop, started + kSoonest, [] { return false; });
    if (wake_.wait_until(lock, stop, started + options_.refresh, [&] { return refresh_now_; })) {
      refresh_now_ = false;
    }
  }
}

void Board::Touch(Entry& entry) {
  entry.changed = ++version_;
  changed_cv_.notify_all();
}

bool Board::Live() const {
  return client_ == nullptr || (leases_synced_ && leases_ && leases_->active());
}

Board::LeaseView::LeaseView(api::LeaseSpec spec, std::string resource_version, bool server_identity)
    : resource_version_(std::move(resource_version)), server_identity_(server_identity) {
  if (spec.holder_identity) {
    holder_ = std::move(*spec.holder_identity);
    present_ |= kHolder;
  }
  if (spec.lease_duration_seconds) {
    lease_duration_seconds_ = *spec.lease_duration_seconds;
    present_ |= kDuration;
  }
  if (spec.acquire_time) {
    acquire_time_ = *spec.acquire_time;
    present_ |= kAcquireTime;
  }
  if (spec.renew_time) {
    renew_time_ = *spec.renew_time;
    present_ |= kRenewTime;
  }
  if (spec.lease_transitions) {
    lease_transitions_ = *spec.lease_transitions;
    present_ |= kTransitions;
  }
  if (spec.strategy || spec.preferred_holder) {
    coordinated_ = std::make_unique<const Coordinated>(
        Coordinated{std::move(spec.strategy), std::move(spec.preferred_holder)});
  }
}

api::LeaseSpec Board::LeaseView::spec() const {
  api::LeaseSpec spec;
  if (present_ & kHolder) spec.holder_identity = holder_;
  if (present_ & kDuration) spec.lease_duration_seconds = lease_duration_seconds_;
  if (present_ & kAcquireTime) spec.acquire_time = acquire_time_;
  if (present_ & kRenewTime) spec.renew_time = renew_time_;
  if (present_ & kTransitions) spec.lease_transitions = lease_transitions_;
  if (coordinated_) {
    spec.strategy = coordinated_->strategy;
    spec.preferred_holder = coordinated_->preferred_holder;
  }
  return spec;
}

void Board::Reschedule(const LeaseKey& key, Entry& entry, api::Timestamp now) {
  if (entry.scheduled) schedule_.erase({*entry.scheduled, &key});
  entry.scheduled.reset();
  if (!entry.lease) return;
  std::optional<api::Timestamp> next = NextStateChange(entry.lease->spec(), now);
  if (auto expiry = entry.ledger.CurrentTermExpiry()) {
    // A term whose lease already ran out ends at the next tick; while the watch is down (no
    // term is judged then) it is looked at again a tick later.
    api::Timestamp due = *expiry;
    if (due <= now) due = Live() ? now : now + options_.tick;
    next = next ? std::min(*next, due) : due;
  }
  if (!next) return;
  entry.scheduled = next;
  schedule_.insert({*next, &key});
}

void Board::ApplyLease(const std::string& type, const json& object) {
  const api::Timestamp now = options_.clock->wall_now();
  if (type == "RESET") {
    std::lock_guard lock(mu_);
    leases_reset_ = true;
    for (auto& [key, entry] : entries_) entry.listed = false;
    return;
  }
  if (type == "SYNCED") {
    std::lock_guard lock(mu_);
    leases_synced_ = true;
    if (leases_reset_) {
      leases_reset_ = false;
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->second.lease && !it->second.listed) EndLease(it, now);
      }
    }
    // The history's Leases that no longer exist: their open terms ended while nobody watched
    // (written, then dropped from memory); the others leave memory now, their history stays in
    // the archive.
    for (auto it = entries_.begin(); it != entries_.end();) {
      Entry& entry = it->second;
      if (entry.lease) {
        ++it;
        continue;
      }
      if (entry.ledger.Observe(now, nullptr)) {
        if (!entry.deleted_at) entry.deleted_at = now;  // at the latest
        entry.archive_dirty = true;
        Touch(entry);
      }
      if (entry.archive_dirty || interest_.count(it->first)) {
        ++it;
      } else {
        it = entries_.erase(it);
      }
    }
    return;
  }
  auto key = KeyOf(object);
  if (!key) return;
  if (type == "DELETED") {
    std::lock_guard lock(mu_);
    auto it = entries_.find(*key);
    if (it != entries_.end()) EndLease(it, now);
    return;
  }
  // Every renewal of every Lease comes here: read leniently (no canonical copy, no original kept;
  // a field of another type reads as unset: the server validated what it stored).
  std::optional<api::Lease> lease = api::LenientLease(object);
  // A Lease the board does not hold may have a history (deleted once, and created again): read
  // from the archive without the board's lock, then looked for again (WriteArchive may have
  // dropped the entry meanwhile).
  std::optional<std::vector<Term>> history;
  bool history_read = false;
  std::unique_lock lock(mu_);
  while (!entries_.count(*key) && !history_read) {
    lock.unlock();
    {
      std::lock_guard archive_lock(archive_mu_);
      if (archive_) history = archive_->TermsOf(*key);
    }
    history_read = true;
    lock.lock();
  }
  auto [it, added] = entries_.try_emplace(*key);
  Entry& entry = it->second;
  if (added && history) entry.ledger.Restore(std::move(*history));
  entry.listed = true;
  entry.deleted_at.reset();
  if (entry.ledger.Observe(now, &lease->spec)) entry.archive_dirty = true;
  entry.state = StatusOf(lease->spec, now).state;
  auto identity = lease->metadata.labels.find(std::string(coordination::kApiServerIdentityLabel));
  const bool server_identity = key->first == "kube-system" &&
                               identity != lease->metadata.labels.end() &&
                               identity->second == "kube-apiserver";
  entry.lease.emplace(std::move(lease->spec), std::move(lease->metadata.resource_version),
                      server_identity);
  Reschedule(it->first, entry, now);
  Touch(entry);
}

void Board::EndLease(std::map<LeaseKey, Entry>::iterator it, api::Timestamp now) {
  it->second.ledger.Observe(now, nullptr);
  it->second.lease.reset();
  it->second.deleted_at = now;
  it->second.archive_dirty = true;  // written with its deletion, then dropped from memory
  Reschedule(it->first, it->second, now);
  Touch(it->second);
}

void Board::ApplyCandidate(const std::string& type, const json& object) {
  if (type == "SYNCED") return;
  auto candidate = api::LeaseCandidateFromJson(object);
  if (!candidate.ok()) return;
  const LeaseKey lease{candidate->metadata.namespace_, candidate->spec.lease_name};
  const std::string name = candidate->metadata.name;
  std::lock_guard lock(mu_);
  // A candidate may move to another Lease: drop it wherever it was.
  for (auto it = candidates_.begin(); it != candidates_.end();) {
    if (it->first.first == lease.first && it->second.erase(name) > 0) {
      if (auto e = entries_.find(it->first); e != entries_.end()) Touch(e->second);
    }
    it = it->second.empty() ? candidates_.erase(it) : std::next(it);
  }
  if (type != "DELETED") candidates_[lease][name] = std::move(*candidate);
  if (auto e = entries_.find(lease); e != entries_.end()) Touch(e->second);
}

void Board::Tick() {
  const api::Timestamp now = options_.clock->wall_now();
  std::lock_guard lock(mu_);
  // While the watch is down (or has not listed yet) renewals may be happening unseen: no term
  // is judged expired then (states still follow the last known times).
  const bool live = Live();
  // The due ones first: one put back at `now` waits for the next tick.
  std::vector<LeaseKey> due;
  while (!schedule_.empty() && schedule_.begin()->first <= now) {
    due.push_back(*schedule_.begin()->second);
    auto it = entries_.find(due.back());
    if (it != entries_.end()) it->second.scheduled.reset();
    schedule_.erase(schedule_.begin());
  }
  for (const LeaseKey& key : due) {
    auto it = entries_.find(key);
    if (it == entries_.end()) continue;
    Entry& entry = it->second;
    if (!entry.lease) continue;
    bool changed = false;
    if (live && entry.ledger.Tick(now)) {
      entry.archive_dirty = true;
      changed = true;
    }
    const LeaseState state = StatusOf(entry.lease->spec(), now).state;
    if (state != entry.state) changed = true;
    entry.state = state;
    Reschedule(it->first, entry, now);
    if (changed) Touch(entry);
  }
}

uint64_t Board::version() const {
  std::lock_guard lock(mu_);
  return version_;
}

uint64_t Board::WaitForChange(uint64_t after, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  changed_cv_.wait_for(lock, timeout, [&] { return version_ > after; });
  return version_;
}

json Board::RowOf(const LeaseKey& key, const Entry& entry) const {
  json row = {{"namespace", key.first}, {"name", key.second}};
  if (!entry.lease) {
    row["state"] = "deleted";
    return row;
  }
  const api::LeaseSpec spec = entry.lease->spec();
  // The times of StatusOf do not depend on the moment; the state is the one last ticked.
  const LeaseStatus times = StatusOf(spec, api::Timestamp{});
  row["holder"] = spec.holder_identity.value_or("");
  row["state"] = LeaseStateName(entry.state);
  row["acquireTime"] = TimeOrNull(spec.acquire_time);
  row["renewTime"] = TimeOrNull(spec.renew_time);
  row["lastRenewal"] = TimeOrNull(times.last_renewal);
  row["expires"] = TimeOrNull(times.expires);
  row["leaseDurationSeconds"] =
      spec.lease_duration_seconds ? json(*spec.lease_duration_seconds) : json(nullptr);
  row["transitions"] = spec.lease_transitions.value_or(0);
  row["strategy"] = spec.strategy.value_or("");
  row["preferredHolder"] = spec.preferred_holder.value_or("");
  auto c = candidates_.find(key);
  row["candidates"] = c == candidates_.end() ? 0 : c->second.size();
  row["resourceVersion"] = entry.lease->resource_version();
  return row;
}

Board::OverviewDelta Board::Overview(const OverviewFilter& filter, uint64_t since,
                                     const std::set<LeaseKey>* shown_before) const {
  const std::string search = Lower(filter.search);
  OverviewDelta out;
  json rows = json::array();
  std::set<std::string> namespaces;
  size_t total = 0;
  std::lock_guard lock(mu_);
  for (const auto& [key, entry] : entries_) {
    if (!entry.lease) continue;
    namespaces.insert(key.first);
    if (!filter.namespace_.empty() && key.first != filter.namespace_) continue;
    if (!search.empty() && Lower(key.first).find(search) == std::string::npos &&
        Lower(key.second).find(search) == std::string::npos &&
        Lower(entry.lease->holder()).find(search) == std::string::npos) {
      continue;
    }
    ++total;
    if (out.shown.size() >= filter.limit) continue;
    out.shown.insert(key);
    if (entry.changed > since || (shown_before != nullptr && !shown_before->count(key))) {
      rows.push_back(RowOf(key, entry));
    }
  }
  out.document = {
      {"version", version_},     {"now", api::FormatMicroTime(options_.clock->wall_now())},
      {"rows", std::move(rows)}, {"total", total},
      {"limit", filter.limit},   {"namespaces", namespaces},
      {"synced", leases_synced_}};
  return out;
}

json Board::CandidatesOf(const LeaseKey& key, const Entry& entry) const {
  json list = json::array();
  json decision = json::object();
  const api::LeaseSpec spec = entry.lease ? entry.lease->spec() : api::LeaseSpec{};
  const std::string holder = spec.holder_identity.value_or("");
  const std::string preferred = spec.preferred_holder.value_or("");
  decision["holder"] = holder;
  decision["preferredHolder"] = preferred;
  decision["strategy"] = spec.strategy.value_or("");
  auto found = candidates_.find(key);
  if (found == candidates_.end() || found->second.empty()) {
    return {{"candidates", list}, {"decision", decision}};
  }
  std::vector<const api::LeaseCandidate*> all;
  for (const auto& [name, c] : found->second) all.push_back(&c);
  coordination::StrategyChoice choice = coordination::PickStrategy(all);
  decision["candidateStrategy"] = choice.strategy;
  if (!choice.conflict.empty()) decision["conflict"] = choice.conflict;
  const api::LeaseCandidate* best = nullptr;
  if (choice.strategy == coordination::kOldestEmulationVersion) {
    best = coordination::PickOldestEmulationVersion(all);
    if (best != nullptr) decision["best"] = best->metadata.name;
  }
  // The order OldestEmulationVersion ranks them in (unparsable versions last, by name).
  std::vector<const api::LeaseCandidate*> ranked = all;
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto* a, const auto* b) {
    const bool pa = api::ParseSemVer(a->spec.emulation_version).has_value() &&
                    api::ParseSemVer(a->spec.binary_version).has_value();
    const bool pb = api::ParseSemVer(b->spec.emulation_version).has_value() &&
                    api::ParseSemVer(b->spec.binary_version).has_value();
    if (pa != pb) return pa;
    if (!pa) return a->metadata.name < b->metadata.name;
    return coordination::CompareOldestEmulationVersion(*a, *b) < 0;
  });
  int rank = 0;
  for (const api::LeaseCandidate* c : ranked) {
    json item = {{"name", c->metadata.name},
                 {"binaryVersion", c->spec.binary_version},
                 {"emulationVersion", c->spec.emulation_version},
                 {"strategy", c->spec.strategy},
                 {"renewTime", TimeOrNull(c->spec.renew_time)},
                 {"pingTime", TimeOrNull(c->spec.ping_time)},
                 {"pingPending", api::PingPending(c->spec)},
                 {"rank", ++rank},
                 {"holder", c->metadata.name == holder},
                 {"preferred", !preferred.empty() && c->metadata.name == preferred},
                 {"best", c == best}};
    list.push_back(std::move(item));
  }
  return {{"candidates", list}, {"decision", decision}};
}

std::optional<json> Board::Lease(const LeaseKey& key, uint64_t* changed) const {
  std::unique_lock lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    // Deleted, and gone from memory: its history is in the archive.
    lock.unlock();
    std::optional<std::vector<Term>> terms;
    {
      std::lock_guard archive_lock(archive_mu_);
      if (archive_) terms = archive_->TermsOf(key);
    }
    if (!terms) return std::nullopt;
    if (changed != nullptr) *changed = 0;
    json list = json::array();
    for (const Term& t : *terms) list.push_back(TermToJson(t));
    return json{{"now", api::FormatMicroTime(options_.clock->wall_now())},
                {"lease", {{"namespace", key.first}, {"name", key.second}, {"state", "deleted"}}},
                {"exists", false},
                {"terms", std::move(list)},
                {"renewals", json::array()},
                {"candidates", json::array()},
                {"decision", json::object()},
                {"events", json::array()}};
  }
  const Entry& entry = it->second;
  if (changed != nullptr) *changed = entry.changed;
  json terms = json::array();
  for (const Term& t : entry.ledger.terms()) terms.push_back(TermToJson(t));
  json renewals = json::array();
  for (const Renewal& r : entry.ledger.renewals()) {
    renewals.push_back({{"at", api::FormatMicroTime(r.at)}, {"intervalMs", r.interval.count()}});
  }
  json out = {{"now", api::FormatMicroTime(options_.clock->wall_now())},
              {"lease", RowOf(key, entry)},
              {"exists", entry.lease.has_value()},
              {"terms", std::move(terms)},
              {"renewals", std::move(renewals)}};
  json candidates = CandidatesOf(key, entry);
  out["candidates"] = std::move(candidates["candidates"]);
  out["decision"] = std::move(candidates["decision"]);
  auto events = events_.find(key);
  out["events"] = events == events_.end() ? json(nullptr) : events->second;
  return out;
}

json Board::Server() const {
  std::lock_guard lock(mu_);
  json out = server_;
  out["source"] = options_.source;
  size_t leases = 0, candidates = 0, replicas = 0;
  int64_t newest = 0;
  for (const auto& [key, entry] : entries_) {
    if (!entry.lease) continue;
    ++leases;
    if (entry.lease->server_identity() && entry.state != LeaseState::kExpired) ++replicas;
    int64_t rv = std::strtoll(entry.lease->resource_version().c_str(), nullptr, 10);
    newest = std::max(newest, rv);
  }
  for (const auto& [key, list] : candidates_) candidates += list.size();
  out["leases"] = leases;
  // API servers that keep an identity Lease (kube-apiserver, tenure serve): those not expired.
  out["replicas"] = replicas;
  out["leaseCandidates"] = candidates;
  out["leaseCandidateVersion"] = candidate_version_;
  out["synced"] = leases_synced_;
  if (!out.contains("revision") && newest > 0) out["newestLeaseRevision"] = newest;
  auto controller = entries_.find(kControllerLease);
  if (controller != entries_.end() && controller->second.lease) {
    out["controller"] = {{"holder", controller->second.lease->holder()},
                         {"state", LeaseStateName(controller->second.state)}};
  }
  out["watching"] = watching_ && leases_ && leases_->active();
  if (!options_.archive_path.empty()) {
    out["history"] = {{"file", options_.archive_path}};
    if (!archive_error_.empty()) out["history"]["error"] = archive_error_;
  }
  return out;
}

void Board::Watch(const LeaseKey& key) {
  {
    std::lock_guard lock(mu_);
    ++interest_[key];
    refresh_now_ = true;
  }
  wake_.notify_all();
}

void Board::Forget(const LeaseKey& key) {
  std::lock_guard lock(mu_);
  auto it = interest_.find(key);
  if (it != interest_.end() && --it->second <= 0) {
    interest_.erase(it);
    events_.erase(key);
    // A deleted Lease kept while someone looked at it leaves memory now (its history is written).
    auto entry = entries_.find(key);
    if (entry != entries_.end() && !entry->second.lease && !entry->second.archive_dirty) {
      if (entry->second.scheduled) schedule_.erase({*entry->second.scheduled, &entry->first});
      entries_.erase(entry);
    }
  }
}

void Board::Refresh(std::stop_token stop) {
  if (!client_) return;
  WatchCandidates();
  json summary = json::object();
  auto version = client_->Call("GET", "/version", nullptr, kCallTimeout);
  if (version.ok() && version->is_object() && version->contains("gitVersion") &&
      (*version)["gitVersion"].is_string()) {
    summary["version"] = (*version)["gitVersion"];
  }
  if (stop.stop_requested()) return;
  auto metrics = client_->CallForText("GET", "/metrics", nullptr, kCallTimeout);
  if (metrics.ok()) {
    summary.update(SummarizeMetrics(*metrics));
  } else {
    summary["metricsError"] = metrics.status().message();
  }
  // The Events of the Leases in view that exist (a name from a page is never put in a path
  // unless the board holds a Lease of that name).
  std::vector<LeaseKey> wanted;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, n] : interest_) {
      auto entry = entries_.find(key);
      if (entry != entries_.end() && entry->second.lease) wanted.push_back(key);
    }
  }
  std::map<LeaseKey, json> events;
  for (const LeaseKey& key : wanted) {
    if (stop.stop_requested()) return;
    const std::string path = "/api/v1/namespaces/" + api::PercentEncode(key.first) +
                             "/events?fieldSelector=involvedObject.kind%3DLease%2C"
                             "involvedObject.name%3D" +
                             api::PercentEncode(key.second);
    auto list = client_->Call("GET", path, nullptr, kCallTimeout);
    if (!list.ok() || !list->is_object() || !list->contains("items") ||
        !(*list)["items"].is_array()) {
      continue;
    }
    std::vector<api::Event> items;
    for (const json& item : (*list)["items"]) {
      auto e = api::EventFromJson(item);
      if (e.ok()) items.push_back(std::move(*e));
    }
    auto when = [](const api::Event& e) {
      return e.last_timestamp.value_or(e.event_time.value_or(api::Timestamp{}));
    };
    std::sort(items.begin(), items.end(),
              [&](const api::Event& a, const api::Event& b) { return when(a) > when(b); });
    json shown = json::array();
    for (size_t i = 0; i < items.size() && i < kEventsShown; ++i) {
      shown.push_back(EventJson(items[i]));
    }
    events[key] = std::move(shown);
  }
  std::lock_guard lock(mu_);
  server_ = std::move(summary);
  for (auto& [key, list] : events) {
    if (!interest_.count(key)) continue;
    json& kept = events_[key];
    if (kept != list) {
      kept = std::move(list);
      if (auto e = entries_.find(key); e != entries_.end()) Touch(e->second);
    }
  }
}

void Board::WriteArchive(bool all_open) {
  // An open term's newest renewal is written now and then (and at Stop), so that a restarted
  // board knows when it was last seen alive without rewriting every Lease at every renewal.
  constexpr auto kRenewalsEvery = std::chrono::minutes(5);
  struct Dirty {
    LeaseKey key;
    std::vector<Term> terms;
    std::optional<api::Timestamp> deleted_at;
  };
  std::vector<Dirty> dirty;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, entry] : entries_) {
      const auto& terms = entry.ledger.terms();
      const bool open = !terms.empty() && terms.back().end_kind == TermEnd::kCurrent;
      if (open &&
          (all_open || terms.back().last_renewal - entry.archived_renewal >= kRenewalsEvery)) {
        entry.archive_dirty = true;
      }
      if (!entry.archive_dirty) continue;
      entry.archive_dirty = false;
      if (open) entry.archived_renewal = terms.back().last_renewal;
      dirty.push_back({key, terms, entry.deleted_at});
    }
  }
  Status s = Status::Ok();
  size_t lost = 0;
  {
    std::lock_guard archive_lock(archive_mu_);
    if (archive_) {
      const size_t lost_before = archive_->lost_records();
      for (const Dirty& d : dirty) archive_->Put(d.key, d.terms, d.deleted_at);
      s = archive_->Flush(options_.clock->wall_now());
      lost = archive_->lost_records() - lost_before;
    }
  }
  if (lost > 0) {
    Log(LogLevel::kWarning, "dashboard",
        "the term history file changed under the dashboard; the histories no longer in it are "
        "forgotten",
        {{"file", options_.archive_path}, {"leases", std::to_string(lost)}});
  }
  std::lock_guard lock(mu_);
  if (!s.ok() && archive_error_ != s.message()) {
    Log(LogLevel::kWarning, "dashboard", "cannot write the term history", {{"error", s.message()}});
  }
  archive_error_ = s.ok() ? "" : s.message();
  // A deleted Lease nobody looks at leaves memory once its history is written (the archive
  // gives it back if the Lease comes again).
  for (const Dirty& d : dirty) {
    auto it = entries_.find(d.key);
    if (it == entries_.end() || it->second.lease || interest_.count(d.key) ||
        it->second.archive_dirty) {
      continue;
    }
    if (it->second.scheduled) schedule_.erase({*it->second.scheduled, &it->first});
    entries_.erase(it);
  }
}

}  // namespace tenure::dashboard
