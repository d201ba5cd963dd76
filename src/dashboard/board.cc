// Board: the dashboard's model of a cluster's leader elections, and its JSON views.
#include "dashboard/board.h"

#include <algorithm>
#include <cctype>

#include "api/codec.h"
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
  double requests = 0, watch_events = 0;
  bool any_requests = false, any_watch_events = false;
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
    } else if (name == "apiserver_longrunning_requests{verb=\"WATCH\"}") {
      out["watchesOpen"] = static_cast<int64_t>(value);
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
  board->leases_ = board->client_->WatchCollection(
      "/apis/coordination.k8s.io/v1/leases",
      [self](const std::string& type, const json& object) { self->ApplyLease(type, object); });
  auto version = client::ServedLeaseCandidateVersion(*board->client_, kCallTimeout);
  if (version.ok()) {
    board->candidate_version_ = *version;
    board->lease_candidates_ = board->client_->WatchCollection(
        "/apis/coordination.k8s.io/" + *version + "/leasecandidates",
        [self](const std::string& type, const json& object) {
          self->ApplyCandidate(type, object);
        });
  }
  board->StartThread();
  return board;
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
  for (const auto& [key, terms] : archive_->loaded()) entries_[key].ledger.Restore(terms);
  return Status::Ok();
}

void Board::StartThread() {
  thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
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
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  WriteArchive();
}

void Board::Run(std::stop_token stop) {
  auto next_refresh = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    Tick();
    if (std::chrono::steady_clock::now() >= next_refresh) {
      Refresh();
      WriteArchive();
      next_refresh = std::chrono::steady_clock::now() + options_.refresh;
    }
    std::unique_lock lock(mu_);
    if (wake_.wait_for(lock, stop, options_.tick, [&] { return refresh_now_; })) {
      refresh_now_ = false;
      next_refresh = std::chrono::steady_clock::now();
    }
  }
}

void Board::Touch(Entry& entry) {
  entry.changed = ++version_;
  changed_cv_.notify_all();
}

void Board::Reschedule(const LeaseKey& key, Entry& entry, api::Timestamp now) {
  if (entry.scheduled) schedule_.erase({*entry.scheduled, key});
  entry.scheduled.reset();
  if (!entry.lease) return;
  std::optional<api::Timestamp> next = NextStateChange(entry.lease->spec, now);
  if (auto expiry = entry.ledger.CurrentTermExpiry(); expiry && *expiry > now) {
    next = next ? std::min(*next, *expiry) : *expiry;
  }
  if (!next) return;
  entry.scheduled = next;
  schedule_.insert({*next, key});
}

void Board::ApplyLease(const std::string& type, const json& object) {
  const api::Timestamp now = options_.clock->wall_now();
  std::lock_guard lock(mu_);
  if (type == "SYNCED") {
    leases_synced_ = true;
    // Leases the history knows that no longer exist were deleted while nobody watched.
    for (auto& [key, entry] : entries_) {
      if (!entry.lease && entry.ledger.Observe(now, nullptr)) {
        entry.archive_dirty = true;
        Touch(entry);
      }
    }
    return;
  }
  auto key = KeyOf(object);
  if (!key) return;
  if (type == "DELETED") {
    auto it = entries_.find(*key);
    if (it == entries_.end()) return;
    if (it->second.ledger.Observe(now, nullptr)) it->second.archive_dirty = true;
    it->second.lease.reset();
    Reschedule(it->first, it->second, now);
    Touch(it->second);
    return;
  }
  auto lease = api::LeaseFromJson(object);
  if (!lease.ok()) {
    Log(LogLevel::kWarning, "dashboard", "a Lease the dashboard cannot read",
        {{"lease", key->first + "/" + key->second}, {"error", lease.status().message()}});
    return;
  }
  Entry& entry = entries_[*key];
  if (entry.ledger.Observe(now, &lease->spec)) entry.archive_dirty = true;
  entry.status = StatusOf(lease->spec, now);
  auto identity = lease->metadata.labels.find(std::string(coordination::kApiServerIdentityLabel));
  const bool server_identity = key->first == "kube-system" &&
                               identity != lease->metadata.labels.end() &&
                               identity->second == "kube-apiserver";
  entry.lease = LeaseView{std::move(lease->spec), std::move(lease->metadata.resource_version),
                          server_identity};
  Reschedule(*key, entry, now);
  Touch(entry);
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
  while (!schedule_.empty() && schedule_.begin()->first <= now) {
    const LeaseKey key = schedule_.begin()->second;
    schedule_.erase(schedule_.begin());
    auto it = entries_.find(key);
    if (it == entries_.end()) continue;
    Entry& entry = it->second;
    entry.scheduled.reset();
    if (!entry.lease) continue;
    bool changed = false;
    if (entry.ledger.Tick(now)) {
      entry.archive_dirty = true;
      changed = true;
    }
    LeaseStatus status = StatusOf(entry.lease->spec, now);
    if (status.state != entry.status.state) changed = true;
    entry.status = status;
    Reschedule(key, entry, now);
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
  const api::LeaseSpec& spec = entry.lease->spec;
  row["holder"] = spec.holder_identity.value_or("");
  row["state"] = LeaseStateName(entry.status.state);
  row["acquireTime"] = TimeOrNull(spec.acquire_time);
  row["renewTime"] = TimeOrNull(spec.renew_time);
  row["lastRenewal"] = TimeOrNull(entry.status.last_renewal);
  row["expires"] = TimeOrNull(entry.status.expires);
  row["leaseDurationSeconds"] =
      spec.lease_duration_seconds ? json(*spec.lease_duration_seconds) : json(nullptr);
  row["transitions"] = spec.lease_transitions.value_or(0);
  row["strategy"] = spec.strategy.value_or("");
  row["preferredHolder"] = spec.preferred_holder.value_or("");
  auto c = candidates_.find(key);
  row["candidates"] = c == candidates_.end() ? 0 : c->second.size();
  row["resourceVersion"] = entry.lease->resource_version;
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
        Lower(entry.lease->spec.holder_identity.value_or("")).find(search) == std::string::npos) {
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
  const std::string holder = entry.lease ? entry.lease->spec.holder_identity.value_or("") : "";
  const std::string preferred = entry.lease ? entry.lease->spec.preferred_holder.value_or("") : "";
  decision["holder"] = holder;
  decision["preferredHolder"] = preferred;
  decision["strategy"] = entry.lease ? entry.lease->spec.strategy.value_or("") : "";
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
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
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
    if (entry.lease->server_identity && entry.status.state != LeaseState::kExpired) ++replicas;
    int64_t rv = std::strtoll(entry.lease->resource_version.c_str(), nullptr, 10);
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
    out["controller"] = {{"holder", controller->second.lease->spec.holder_identity.value_or("")},
                         {"state", LeaseStateName(controller->second.status.state)}};
  }
  out["watching"] = watching_ && leases_ && leases_->active();
  if (archive_ || !options_.archive_path.empty()) {
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
  }
}

void Board::Refresh() {
  if (!client_) return;
  json summary = json::object();
  auto text = [](std::string_view t) { return json(std::string(t)); };
  auto version = client_->Call("GET", "/version", nullptr, kCallTimeout);
  if (version.ok() && version->is_object()) {
    summary["version"] = version->value("gitVersion", "");
  }
  auto metrics = client_->Call("GET", "/metrics", nullptr, kCallTimeout, "application/json", text);
  if (metrics.ok() && metrics->is_string()) {
    summary.update(SummarizeMetrics(metrics->get_ref<const std::string&>()));
  } else if (!metrics.ok()) {
    summary["metricsError"] = metrics.status().message();
  }
  std::vector<LeaseKey> wanted;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, n] : interest_) wanted.push_back(key);
  }
  std::map<LeaseKey, json> events;
  for (const LeaseKey& key : wanted) {
    const std::string path = "/api/v1/namespaces/" + key.first +
                             "/events?fieldSelector=involvedObject.kind%3DLease%2C"
                             "involvedObject.name%3D" +
                             key.second;
    auto list = client_->Call("GET", path, nullptr, kCallTimeout);
    if (!list.ok() || !list->contains("items")) continue;
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
    for (size_t i = 0; i < items.size() && i < kEventsShown; ++i)
      shown.push_back(EventJson(items[i]));
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

void Board::WriteArchive() {
  std::vector<std::pair<LeaseKey, std::vector<Term>>> dirty;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, entry] : entries_) {
      if (!entry.archive_dirty) continue;
      entry.archive_dirty = false;
      dirty.emplace_back(
          key, std::vector<Term>(entry.ledger.terms().begin(), entry.ledger.terms().end()));
    }
  }
  std::lock_guard archive_lock(archive_mu_);
  if (!archive_) return;
  for (const auto& [key, terms] : dirty) archive_->Put(key, terms);
  Status s = archive_->Flush(options_.clock->wall_now());
  std::lock_guard lock(mu_);
  if (!s.ok() && archive_error_ != s.message()) {
    Log(LogLevel::kWarning, "dashboard", "cannot write the term history", {{"error", s.message()}});
  }
  archive_error_ = s.ok() ? "" : s.message();
}

}  // namespace tenure::dashboard
