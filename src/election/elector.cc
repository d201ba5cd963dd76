// Elector: the election loop around the rules of lease_decision.h. It does the I/O (lock
// calls, watch, sleeps on the injected Clock), keeps what was seen under one mutex, runs each
// term's work on a thread of its own and fires the term's stop token (TermGuard). The loop is a
// coroutine: Run executes it on the caller's thread, where every wait blocks; an ElectionPool
// resumes it on its threads, where a wait holds none (election/sleep.h).
#include "tenure/elector.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include "election/executor.h"
#include "election/jitter.h"
#include "election/leader_notifier.h"
#include "election/lease_decision.h"
#include "election/sleep.h"
#include "election/task.h"
#include "election/term_guard.h"
#include "tenure/election_pool.h"
#include "tenure/log.h"

namespace tenure {

namespace {

using election::ElectorView;
using election::Sighting;
using election::Task;
using election::TermEnd;

// The time left for the calls of one attempt. Lock calls take real time, whatever clock the
// elector is given, so this counts on the steady clock.
class Budget {
 public:
  explicit Budget(std::chrono::nanoseconds total)
      : deadline_(std::chrono::steady_clock::now() + total) {}
  std::chrono::nanoseconds left() const {
    return std::max(std::chrono::nanoseconds(0), deadline_ - std::chrono::steady_clock::now());
  }
  bool spent() const { return left().count() == 0; }

 private:
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace

struct Elector::State {
  explicit State(ElectionConfig c)
      : config(std::move(c)),
        rules(election::Rules::Of(config)),
        notifier(config.callbacks.on_new_leader) {}
  ~State() {
    for (auto& worker : workers) {
      if (worker.thread.joinable()) worker.thread.join();
    }
  }

  const ElectionConfig config;
  const election::Rules rules;
  Clock& clock() const { return *config.clock; }

  // Set for a run on an ElectionPool (with the clock's timers); null while Run blocks a thread.
  election::Executor* executor = nullptr;
  std::shared_ptr<DeadlineTimers> timers;
  std::atomic<bool> running{false};  // an election runs (Run, or a handle on a pool)

  // Starts a run on `on` (null: the caller's thread). A second run at once is a misuse that
  // would corrupt the first: the process ends, saying why.
  void BeginRun(election::Executor* on) {
    if (running.exchange(true)) {
      Log(LogLevel::kError, "elector", "an elector runs one election at a time",
          {{"election", config.name}});
      std::abort();
    }
    executor = on;
    timers = on != nullptr ? DeadlineTimers::For(config.clock) : nullptr;
    notifier.RunOn(on);
  }
  // Waits until `deadline` (true) or until `stop` (false): see election/sleep.h.
  election::SleepAwaiter SleepUntil(Clock::TimePoint deadline, std::stop_token stop) {
    return {executor, timers.get(), clock(), deadline, std::move(stop)};
  }

  mutable std::mutex mu;
  // What was seen of the record and when, whether we lead, our last write: what the rules read.
  ElectorView view;
  std::string reported_leader;
  std::optional<LeaderTerm> term;
  bool end_of_term = false;  // coordinated: preferredHolder names someone else
  // Yield(): the current term's guard (set while a term runs) and whether Yield ended it.
  TermGuard* guard = nullptr;
  bool yielded = false;
  // The current term's stop token: once it fired we no longer lead, even while the Run thread
  // is still inside a hung call.
  std::stop_token term_token;
  bool LeadingLocked() const { return view.leading && !term_token.stop_requested(); }
  ElectorMetrics metrics;
  // The last attempt's error (OK after a success) and the one on_error last heard of.
  Status last_error;
  std::string reported_error;
  // Requested by the lock's watch: wakes a waiting follower to re-evaluate the lease.
  std::stop_source wake_source;
  // Records the watch delivered so far: a change that arrives between a look at the record and
  // the sleep that follows (before wake_source exists) must still cut that sleep short.
  uint64_t watched_changes = 0;
  // While a watching follower waits for the lease it saw to expire: until when.
  std::optional<Clock::TimePoint> follower_waits_until;
  // on_started_leading calls, each with a source fired when it returned (a handover waits on
  // it); finished ones are joined while renewing (their stacks are freed), the rest by ~Elector.
  struct Worker {
    std::stop_source finished;
    std::jthread thread;
  };
  std::vector<Worker> workers;

  void JoinFinishedWorkers() {
    std::vector<Worker> finished;
    {
      std::lock_guard lock(mu);
      for (auto it = workers.begin(); it != workers.end();) {
        if (it->finished.stop_requested()) {
          finished.push_back(std::move(*it));
          it = workers.erase(it);
        } else {
          ++it;
        }
      }
    }
    // ~jthread joins; the threads have returned already.
  }

  election::LeaderNotifier notifier;

  Lock& lock() const { return *config.lock; }

  // An attempt on the lock failed for `s`: a race (Conflict on update, AlreadyExists on create)
  // or a lease that is not there (yet: a coordinated candidate waits for the controller to
  // create it; or deleted meanwhile) is how the algorithm works, not an error; anything else (403
  // naming a missing right, an unreachable server) is kept for LastError and told to on_error once
  // per distinct error.
  template <typename T>
  const Result<T>& Checked(const Result<T>& result) {
    if (result.ok()) {
      Succeeded();
    } else if (!result.status().IsConflict() && !result.status().IsAlreadyExists() &&
               !result.status().IsNotFound()) {
      Failed(result.status());
    }
    return result;
  }
  void Failed(const Status& s) {
    bool tell = false;
    {
      std::lock_guard lock(mu);
      last_error = s;
      tell = s.message() != reported_error;
      if (tell) reported_error = s.message();
    }
    if (!tell) return;
    LogLine(LogLevel::kWarning, "attempt on the lock failed", {{"error", s.ToString()}});
    if (config.callbacks.on_error) config.callbacks.on_error(s);
  }
  // A log line about this election: its name and this candidate's identity, then `more`.
  void LogLine(LogLevel level, std::string_view message, std::initializer_list<LogField> more) {
    if (!LogEnabled(level)) return;
    std::vector<LogField> fields = {{"election", config.name}, {"identity", rules.identity}};
    fields.insert(fields.end(), more.begin(), more.end());
    Log(level, "elector", message, fields);
  }
  void Succeeded() {
    std::lock_guard lock(mu);
    last_error = Status::Ok();
    reported_error.clear();
  }

  // Every record read, written or watched goes through here; a change of bytes stamps the time
  // it was observed. One that ends the term (EndsTerm) ends it at once, however it was seen: on
  // the watch, or on the GET of a renewal whose fast path conflicted (client-go would keep
  // leading until its renew deadline, while the new holder already leads).
  void Observe(const ObservedRecord& record) {
    std::string new_leader;
    std::optional<std::stop_source> end_term;
    {
      std::lock_guard lock(mu);
      std::optional<Sighting>& seen = view.seen;
      // Older than what we know (a watch event that arrived after a newer GET or write): it
      // would restamp the observed time and bring back a holder that is gone.
      if (seen && record.version != 0 && record.version < seen->record.version) return;
      Clock::TimePoint observed_at =
          seen && seen->record.raw == record.raw ? seen->observed_at : clock().now();
      seen = Sighting{record, observed_at};
      const std::string& holder = record.record.holder_identity;
      if (holder != reported_leader) {
        reported_leader = holder;
        new_leader = holder;
      }
      end_term = EndedByLocked(record);
    }
    if (!new_leader.empty()) {
      LogLine(LogLevel::kInfo, "new leader observed", {{"leader", new_leader}});
      notifier.Notify(new_leader);
    }
    // Outside the lock: the term token's stop callbacks (the user's too) may call the elector.
    if (end_term) end_term->request_stop();
  }

  // The current term's guard, when `record` ends that term (see Observe).
  std::optional<std::stop_source> EndedByLocked(const ObservedRecord& record) {
    if (guard == nullptr) return std::nullopt;
    TermEnd end = election::EndsTerm(record, view, rules);
    if (end == TermEnd::kNone) return std::nullopt;
    // Preempted: release once drained; given away: nothing to release.
    end_of_term = end == TermEnd::kPreempted;
    return guard->source();
  }

  // The term's guard is in place: what was seen, or asked for, since the term started (between
  // StartTerm and now nothing could fire it) takes effect now.
  void Guard(TermGuard& g) {
    std::optional<std::stop_source> end_term;
    {
      std::lock_guard lock(mu);
      term_token = g.token();
      guard = &g;
      if (view.seen) end_term = EndedByLocked(view.seen->record);
      if (yielded) end_term = g.source();
    }
    if (end_term) end_term->request_stop();
  }

  // The term ended while a call was under way (Observe saw the lease given away): the call must
  // not go on to write.
  bool TermEnded() const {
    std::lock_guard lock(mu);
    return view.leading && term_token.stop_requested();
  }

  // From the lock's watch: no request is made; a waiting follower re-evaluates when the change
  // brings its next step sooner (with thousands of electors in a process, waking every follower
  // at each renewal of its leader would cost a thread switch per renewal for nothing).
  void OnWatched(const ObservedRecord& record) {
    Observe(record);
    std::lock_guard lock(mu);
    if (follower_waits_until &&
        !election::FollowerWakesFor(view, rules, clock().now(), *follower_waits_until)) {
      return;
    }
    ++watched_changes;
    wake_source.request_stop();
  }

  bool ValidlyHeld() const {
    std::lock_guard lock(mu);
    return election::ValidlyHeld(view, clock().now());
  }
  bool HeldByOther() const {
    std::lock_guard lock(mu);
    return election::HeldByOther(view, rules, clock().now());
  }

  // Records a successful write of ours that replaced the record `replaced` (nullptr: created).
  int64_t Written(const ObservedRecord& written, Clock::TimePoint sent,
                  const ObservedRecord* replaced) {
    {
      std::lock_guard lock(mu);
      view.own_version = std::max(view.own_version, written.version);
      if (election::RestartsOthersCount(replaced, written)) view.last_renew_sent = sent;
    }
    Observe(written);
    return written.version;
  }

  // The record a fast-path renewal writes over, when the rules allow one.
  std::optional<ObservedRecord> CachedForRenewal(Clock::TimePoint now) {
    std::lock_guard lock(mu);
    if (!election::MayRenewFromCache(view, rules, now)) return std::nullopt;
    return view.seen->record;
  }

  // The record a follower's attempt writes over without reading it first: the one it saw, when
  // that shows the lease free, expired or ours (one it shows held by another makes the attempt
  // read, as client-go does). Its version is the write's compare-and-swap: a newer record makes
  // it fail with Conflict, and the attempt then reads.
  std::optional<ObservedRecord> SeenForAcquire(Clock::TimePoint now) {
    std::lock_guard lock(mu);
    if (view.leading || !view.seen || view.seen->record.version == 0) return std::nullopt;
    if (election::HeldByOther(view, rules, now)) return std::nullopt;
    return view.seen->record;
  }

  void CountSlowPath() {
    std::lock_guard lock(mu);
    if (view.leading) ++metrics.slow_path_total;
  }

  // One attempt of client-go's tryAcquireOrRenew. Returns the version written on success.
  // `timeout` bounds the whole attempt: each call gets what is left of it (a hung server must not
  // stretch one attempt to several timeouts).
  std::optional<int64_t> TryAcquireOrRenew(Clock::Duration timeout) {
    Budget budget(timeout);
    if (config.coordinated) return TryRenewHeld(budget);
    Clock::TimePoint sent = clock().now();
    Clock::WallTime wall_sent = clock().wall_now();
    // Fast path: the leader updates with its cached version, no GET.
    if (std::optional<ObservedRecord> cached = CachedForRenewal(sent)) {
      auto written = Checked(lock().Update(
          election::AcquireOrRenewRecord(&cached->record, rules, wall_sent), budget.left()));
      if (written.ok()) return Written(*written, sent, &*cached);
      if (budget.spent()) return std::nullopt;
    } else if (std::optional<ObservedRecord> seen = SeenForAcquire(sent)) {
      auto written =
          Checked(lock().UpdateAt(election::AcquireOrRenewRecord(&seen->record, rules, wall_sent),
                                  seen->version, budget.left()));
      if (written.ok()) return Written(*written, sent, &*seen);
      if (budget.spent()) return std::nullopt;
    }
    CountSlowPath();
    auto current = lock().Get(budget.left());
    if (!current.ok()) {
      if (!current.status().IsNotFound()) Failed(current.status());
      if (!current.status().IsNotFound() || budget.spent()) return std::nullopt;
      auto written = Checked(
          lock().Create(election::AcquireOrRenewRecord(nullptr, rules, wall_sent), budget.left()));
      if (!written.ok()) return std::nullopt;
      return Written(*written, sent, nullptr);
    }
    Observe(*current);
    if (TermEnded() || HeldByOther()) {
      Succeeded();  // the lease was read: a follower's attempt ends here without a write
      return std::nullopt;
    }
    if (budget.spent()) return std::nullopt;
    auto written = Checked(lock().Update(
        election::AcquireOrRenewRecord(&current->record, rules, wall_sent), budget.left()));
    if (!written.ok()) return std::nullopt;
    return Written(*written, sent, &*current);
  }

  // Renews only a lease that names us (election::RenewHeld): the coordinated leader and a
  // draining one. Unlike client-go, the coordinated leader renews on the fast path (cached
  // version, no GET): any change by the controller (preferredHolder, a new holder) changes the
  // version, so the write fails with Conflict and the slow path reads it.
  std::optional<int64_t> TryRenewHeld(Budget& budget) {
    Clock::TimePoint sent = clock().now();
    if (std::optional<ObservedRecord> cached = CachedForRenewal(sent)) {
      auto written = Checked(lock().Update(
          election::RenewedHeldRecord(cached->record, rules, clock().wall_now()), budget.left()));
      if (written.ok()) return Written(*written, sent, &*cached);
      if (budget.spent()) return std::nullopt;
    }
    CountSlowPath();
    auto current = Checked(lock().Get(budget.left()));
    if (!current.ok()) return std::nullopt;
    Observe(*current);
    election::HeldRenewal renewal;
    {
      std::lock_guard lock(mu);
      renewal =
          election::RenewHeld(current->record, view, rules, clock().now(), clock().wall_now());
      if (renewal.preempted) end_of_term = true;
    }
    if (!renewal.write || budget.spent()) return std::nullopt;
    auto written = Checked(lock().Update(*renewal.write, budget.left()));
    if (!written.ok()) return std::nullopt;
    return Written(*written, sent, &*current);
  }

  Clock::TimePoint MustStopBy() const {
    std::lock_guard lock(mu);
    return election::MustStopBy(view, rules);
  }

  // Sleeps until `deadline` or until the lock's watch reports a change (or stop).
  // `seen` is watched_changes when the caller last looked at the record: a later change ends
  // the wait at once. A watching follower (`follower`) is woken only by a change that brings its
  // next step before `deadline` (FollowerWakesFor); any other sleeper by every change.
  Task<> SleepUntilChange(Clock::TimePoint deadline, std::stop_token stop, uint64_t seen,
                          bool follower = false) {
    std::stop_source wake;
    {
      std::lock_guard lock(mu);
      if (watched_changes != seen) co_return;
      wake_source = wake;
      if (follower) follower_waits_until = deadline;
    }
    {
      std::stop_callback forward(stop, [&] { wake.request_stop(); });
      co_await SleepUntil(deadline, wake.get_token());
    }
    std::lock_guard lock(mu);
    follower_waits_until.reset();
  }

  // Returns true once leading, false when stopped.
  Task<bool> Acquire(std::stop_token stop, const LockWatch* watch) {
    while (!stop.stop_requested()) {
      bool watching = watch != nullptr && watch->active();
      election::FollowerStep step;
      uint64_t seen;
      {
        std::lock_guard lock(mu);
        step = election::NextFollowerStep(view, rules, clock().now(), watching);
        seen = watched_changes;
      }
      if (!step.attempt) {
        // A watching follower: no request until the observed lease expires or the record
        // changes so that it may act sooner.
        co_await SleepUntilChange(step.until, stop, seen, /*follower=*/true);
        continue;
      }
      if (auto version = TryAcquireOrRenew(config.renew_deadline)) {
        StartTerm(*version);
        co_return true;
      }
      {
        std::lock_guard lock(mu);
        ++metrics.failed_attempts_total;
      }
      if (watching && HeldByOther()) continue;
      Clock::TimePoint retry_at = clock().now() + Jittered(config.retry_period);
      if (watch != nullptr) {
        // Polling, but a change seen by the (maybe just reconnected) watch still wakes us: e.g.
        // a lease created, released or assigned meanwhile.
        co_await SleepUntilChange(retry_at, stop, seen);
      } else {
        co_await SleepUntil(retry_at, stop);
      }
    }
    co_return false;
  }

  void CountRenewal(std::chrono::nanoseconds took) {
    double seconds = std::chrono::duration<double>(took).count();
    size_t bucket = 0;
    while (bucket < kRenewDurationBuckets.size() && seconds > kRenewDurationBuckets[bucket]) {
      ++bucket;
    }
    std::lock_guard lock(mu);
    ++metrics.renew_total;
    metrics.last_renew_latency = took;
    ++metrics.renew_duration_buckets[bucket];
    metrics.renew_duration_sum_seconds += seconds;
    ++metrics.renew_duration_count;
  }

  void StartTerm(int64_t version) {
    std::lock_guard lock(mu);
    view.leading = true;
    term = LeaderTerm{rules.identity, static_cast<uint64_t>(version), clock().wall_now()};
    metrics.is_leader = true;
    ++metrics.transitions_total;
    ++metrics.renew_total;
  }

  // Renews every retry period until a renewal fails for renew_deadline or the guard fires
  // (deadline or election stop).
  Task<> Renew(TermGuard& guard) {
    std::stop_token token = guard.token();
    while (!guard.fired()) {
      if (!co_await SleepUntil(clock().now() + config.retry_period, token)) co_return;
      Clock::TimePoint deadline = clock().now() + config.renew_deadline;
      bool renewed = false;
      while (!guard.fired() && clock().now() < deadline) {
        Clock::TimePoint start = clock().now();
        auto left = election::RenewalAttemptBudget(start, deadline, MustStopBy());
        if (left <= Clock::Duration::zero()) co_return;
        auto sent = std::chrono::steady_clock::now();  // real time, whatever the clock
        if (TryAcquireOrRenew(left)) {
          renewed = true;
          CountRenewal(std::chrono::steady_clock::now() - sent);
          break;
        }
        {
          std::lock_guard lock(mu);
          ++metrics.failed_attempts_total;
          if (end_of_term) co_return;
        }
        // Attempts start a retry period apart, as client-go's poll does: after one that
        // failed slowly (a timeout) the next follows at once.
        co_await SleepUntil(std::min(deadline, start + config.retry_period), token);
      }
      if (!renewed) co_return;
      guard.Extend(MustStopBy());
      JoinFinishedWorkers();
    }
  }

  // A graceful handover's wait for the term's work (`finished` fires once on_started_leading
  // returned), renewing every retry period meanwhile. True once the work stopped while the lease
  // was still ours; false when drain_timeout passed, when the lease could no longer be kept
  // (MustStopBy passed without a renewal) or when the watch showed it given to someone else.
  Task<bool> Drain(std::stop_token finished) {
    {
      std::lock_guard lock(mu);
      view.draining = true;
    }
    bool drained = co_await RenewUntilFinished(finished, clock().now() + config.drain_timeout);
    std::lock_guard lock(mu);
    view.draining = false;
    co_return drained;
  }

  Task<bool> RenewUntilFinished(std::stop_token finished, Clock::TimePoint give_up) {
    Clock::TimePoint next_renewal = clock().now() + config.retry_period;
    while (!finished.stop_requested()) {
      Clock::TimePoint now = clock().now();
      election::DrainStep step;
      uint64_t seen;
      {
        std::lock_guard lock(mu);
        step = election::NextDrainStep(view, rules, now, next_renewal, give_up);
        seen = watched_changes;
      }
      switch (step.action) {
        case election::DrainStep::Action::kGiveUp:
          co_return false;
        case election::DrainStep::Action::kRenew: {
          Budget budget(step.attempt_budget);
          if (TryRenewHeld(budget)) {
            std::lock_guard lock(mu);
            ++metrics.renew_total;
          }
          next_renewal = now + config.retry_period;
          break;
        }
        case election::DrainStep::Action::kWait:
          co_await SleepUntilChange(step.wait_until, finished, seen);
          break;
      }
    }
    co_return true;
  }

  void EndTerm() {
    std::lock_guard lock(mu);
    end_of_term = false;
    view.leading = false;
    term.reset();
    // The fired token must not outlive its term: the next term is "leading" from StartTerm on,
    // before its own guard's token is stored.
    term_token = {};
    metrics.is_leader = false;
  }

  // client-go's release: GET, and if still ours write the released record; retry on Conflict
  // until renew_deadline. The first attempt writes over the record last seen (usually our own
  // last renewal) at its version, without the GET: a Conflict means it moved on, and the loop
  // reads it.
  void Release() {
    Clock::TimePoint deadline = clock().now() + config.renew_deadline;
    std::optional<ObservedRecord> seen;
    {
      std::lock_guard lock(mu);
      if (view.seen && view.seen->record.version != 0) seen = view.seen->record;
    }
    if (seen) {
      auto released = election::ReleaseRecord(seen->record, rules, clock().wall_now());
      if (released) {
        auto left = std::chrono::duration_cast<Clock::Duration>(deadline - clock().now());
        auto written = Checked(lock().UpdateAt(*released, seen->version, left));
        if (written.ok()) {
          Observe(*written);
          return;
        }
        if (!written.status().IsConflict()) return;
      }
    }
    while (clock().now() < deadline) {
      auto left = std::chrono::duration_cast<Clock::Duration>(deadline - clock().now());
      auto current = Checked(lock().Get(left));
      if (!current.ok()) return;
      auto released = election::ReleaseRecord(current->record, rules, clock().wall_now());
      if (!released) return;
      auto written = Checked(lock().Update(*released, left));
      if (written.ok()) {
        Observe(*written);
        return;
      }
      if (!written.status().IsConflict()) return;
    }
  }

  // The election: campaigns and leads until `stop` (Elector::Run's contract). Every wait goes
  // through SleepUntil, so the same code blocks a thread or runs on a pool.
  Task<> Campaign(std::stop_token stop) {
    auto watch = lock().Watch([this](const ObservedRecord& r) { OnWatched(r); });
    LogLine(LogLevel::kInfo, "campaigning", {{"watch", watch ? "true" : "false"}});
    while (!stop.stop_requested()) {
      if (!co_await Acquire(stop, watch.get())) break;
      LeaderTerm held;
      {
        std::lock_guard lock(mu);
        held = *term;
      }
      LogLine(LogLevel::kInfo, "became leader",
              {{"fencing_token", std::to_string(held.fencing_token)}});
      lock().RecordEvent("LeaderElection", held.identity + " became leader");
      TermGuard term_guard(config.clock, MustStopBy(), stop);
      Guard(term_guard);
      std::stop_source finished;
      {
        std::lock_guard lock(mu);
        workers.push_back({finished, std::jthread([fn = config.callbacks.on_started_leading, held,
                                                   token = term_guard.token(), finished] {
                             fn(token, held);
                             finished.request_stop();
                           })});
      }
      co_await Renew(term_guard);
      term_guard.Fire();  // the leader's work stops before anything else happens
      bool stopped = stop.stop_requested();
      bool was_yielded = false;
      bool preempted;
      {
        std::lock_guard lock(mu);
        std::swap(was_yielded, yielded);
        preempted = end_of_term;
      }
      // A graceful end releases the lease so the next leader need not wait it out (a preempted
      // coordinated leader too, where upstream candidates just stop renewing), but only once the
      // term's work has stopped: until then the lease is renewed.
      bool handover = (stopped && config.release_on_cancel) || preempted || was_yielded;
      bool drained = false;
      if (handover) drained = co_await Drain(finished.get_token());
      {
        std::lock_guard lock(mu);
        guard = nullptr;
      }
      EndTerm();
      if (drained) Release();
      const char* why = was_yielded ? "yielded"
                        : preempted ? "preempted"
                        : stopped   ? "stopped"
                                    : "renewal failed";
      LogLine(LogLevel::kInfo, "stopped leading",
              {{"fencing_token", std::to_string(held.fencing_token)},
               {"reason", why},
               {"released", drained ? "true" : "false"}});
      lock().RecordEvent(
          "LeaderElection",
          held.identity + (handover && !drained ? " stopped leading without releasing the "
                                                  "lease (its work had not stopped within "
                                                  "drainTimeout, or the lease was no longer ours)"
                                                : " stopped leading"));
      config.callbacks.on_stopped_leading();
      if (stopped) break;
      if (was_yielded) {
        // Still a candidate, but others get the first chance at the released lease.
        if (!co_await SleepUntil(
                clock().now() + config.recontend_after.value_or(config.retry_period), stop)) {
          break;
        }
        continue;
      }
      if (!config.recontend_after) break;
      if (!co_await SleepUntil(clock().now() + *config.recontend_after, stop)) break;
    }
  }
};

Elector::Elector(ElectionConfig config) : state_(std::make_unique<State>(std::move(config))) {}

Elector::~Elector() = default;

Result<std::unique_ptr<Elector>> Elector::Create(ElectionConfig config) {
  if (!config.clock) config.clock = Clock::Real();
  if (config.name.empty() && config.lock) config.name = config.lock->Describe();
  Status s = ValidateElectionConfig(config);
  if (!s.ok()) return s;
  return std::unique_ptr<Elector>(new Elector(std::move(config)));
}

void Elector::Run(std::stop_token stop) {
  State& st = *state_;
  st.BeginRun(nullptr);
  Task<> election = st.Campaign(std::move(stop));
  // No wait suspends without an executor: the election has ended when this returns.
  if (!election.RunHere()) std::terminate();
  st.running = false;
  election.Result();
}

void Elector::Yield() {
  std::stop_source term;
  {
    std::lock_guard lock(state_->mu);
    if (!state_->LeadingLocked()) return;
    state_->yielded = true;
    if (state_->guard == nullptr) return;  // the term is just starting: Guard() fires it
    term = state_->guard->source();
  }
  // Outside the lock: the term token's stop callbacks (the user's too) may call the elector.
  term.request_stop();
}

bool Elector::IsLeader() const {
  std::lock_guard lock(state_->mu);
  return state_->LeadingLocked();
}

std::string Elector::Leader() const {
  std::lock_guard lock(state_->mu);
  const auto& seen = state_->view.seen;
  return seen ? seen->record.record.holder_identity : "";
}

std::optional<LeaderTerm> Elector::CurrentTerm() const {
  std::lock_guard lock(state_->mu);
  if (!state_->LeadingLocked()) return std::nullopt;
  return state_->term;
}

bool Elector::Healthy() const {
  const State& st = *state_;
  std::lock_guard lock(st.mu);
  return election::Healthy(st.view, st.rules, st.clock().now());
}

Status Elector::LastError() const {
  std::lock_guard lock(state_->mu);
  return state_->last_error;
}

ElectorMetrics Elector::metrics() const {
  std::lock_guard lock(state_->mu);
  ElectorMetrics m = state_->metrics;
  m.is_leader = state_->LeadingLocked();
  return m;
}

const ElectionConfig& Elector::config() const { return state_->config; }

Result<ElectionHandle> ElectionHandle::Start(ElectionConfig config) {
  auto elector = Elector::Create(std::move(config));
  if (!elector.ok()) return elector.status();
  return ElectionHandle(std::move(elector).value());
}

Result<ElectionHandle> ElectionHandle::Start(ElectionConfig config,
                                             std::shared_ptr<ElectionPool> pool) {
  if (pool == nullptr) return Status(Reason::kInvalid, "ElectionHandle::Start: pool is null");
  auto elector = Elector::Create(std::move(config));
  if (!elector.ok()) return elector.status();
  return ElectionHandle(std::shared_ptr<Elector>(std::move(elector).value()), std::move(pool));
}

ElectionHandle::ElectionHandle(std::unique_ptr<Elector> elector)
    : ElectionHandle(std::shared_ptr<Elector>(std::move(elector))) {}

ElectionHandle::ElectionHandle(std::shared_ptr<Elector> elector)
    : elector_(std::move(elector)),
      thread_([e = elector_](std::stop_token stop) { e->Run(stop); }) {}

// An election on a pool: its stop, and when its coroutine has ended.
struct ElectionHandle::OnPool {
  std::stop_source stop;
  std::mutex mu;
  std::condition_variable ended_cv;
  bool ended = false;
};

ElectionHandle::ElectionHandle(std::shared_ptr<Elector> elector, std::shared_ptr<ElectionPool> pool)
    : elector_(std::move(elector)), pool_(std::move(pool)) {
  if (pool_ == nullptr) {
    thread_ = std::jthread([e = elector_](std::stop_token stop) { e->Run(stop); });
    return;
  }
  on_pool_ = std::make_shared<OnPool>();
  Elector::State& st = *elector_->state_;
  st.BeginRun(&pool_->executor());
  // The frame ends before `done` runs, and `done` holds no pool: the handle's thread releases it.
  std::coroutine_handle<> start =
      election::Detach(st.Campaign(on_pool_->stop.get_token()), [on_pool = on_pool_, state = &st] {
        state->running = false;
        std::lock_guard lock(on_pool->mu);
        on_pool->ended = true;
        on_pool->ended_cv.notify_all();
      });
  st.executor->Post([start] { start.resume(); });
}

ElectionHandle::~ElectionHandle() { Stop(); }

ElectionHandle& ElectionHandle::operator=(ElectionHandle&& other) noexcept {
  if (this != &other) {
    Stop();  // this handle's election must end before its elector can be released
    elector_ = std::move(other.elector_);
    thread_ = std::move(other.thread_);
    on_pool_ = std::move(other.on_pool_);
    pool_ = std::move(other.pool_);
  }
  return *this;
}

void ElectionHandle::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  if (on_pool_ != nullptr) {
    on_pool_->stop.request_stop();
    std::unique_lock lock(on_pool_->mu);
    on_pool_->ended_cv.wait(lock, [this] { return on_pool_->ended; });
  }
}

}  // namespace tenure
