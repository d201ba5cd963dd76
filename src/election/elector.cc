#include "tenure/elector.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "election/jitter.h"
#include "election/term_guard.h"

namespace tenure {

namespace {

// Runs on_new_leader calls in order on one thread, so they never block the elector.
class Notifier {
 public:
  explicit Notifier(std::function<void(const std::string&)> fn) : fn_(std::move(fn)) {
    if (fn_) thread_ = std::jthread([this](std::stop_token stop) { Loop(stop); });
  }
  ~Notifier() {
    if (thread_.joinable()) {
      thread_.request_stop();
      cv_.notify_all();
    }
  }
  void Notify(std::string identity) {
    if (!fn_) return;
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(identity));
    }
    cv_.notify_all();
  }

 private:
  void Loop(std::stop_token stop) {
    std::unique_lock lock(mu_);
    while (true) {
      cv_.wait(lock, stop, [&] { return !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      std::string identity = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      fn_(identity);
      lock.lock();
    }
  }
  std::function<void(const std::string&)> fn_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::string> queue_;
  std::jthread thread_;
};

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

// How long after sending a successful renewal the leader may still act: the lease as others
// count it, shortened by the clock drift they may have and the safety margin.
Clock::Duration UsableLease(const ElectionConfig& c) {
  return std::chrono::duration_cast<Clock::Duration>(c.lease_duration *
                                                     (1.0 - c.max_clock_rate_drift)) -
         c.safety_margin;
}

// "2.5s", "0.15s": durations in validation messages.
std::string SecondsText(Clock::Duration d) {
  std::ostringstream out;
  out << static_cast<double>(d.count()) / 1e9 << "s";
  return out.str();
}

}  // namespace

Status ValidateElectionConfig(const ElectionConfig& c) {
  auto invalid = [](std::string message) { return Status(Reason::kInvalid, std::move(message)); };
  if (c.lease_duration <= c.renew_deadline) {
    return invalid("leaseDuration must be greater than renewDeadline");
  }
  if (static_cast<double>(c.renew_deadline.count()) <=
      kJitterFactor * static_cast<double>(c.retry_period.count())) {
    return invalid("renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (c.lease_duration.count() < 1) return invalid("leaseDuration must be greater than zero");
  if (c.renew_deadline.count() < 1) return invalid("renewDeadline must be greater than zero");
  if (c.retry_period.count() < 1) return invalid("retryPeriod must be greater than zero");
  if (!c.callbacks.on_started_leading) return invalid("OnStartedLeading callback must not be nil");
  if (!c.callbacks.on_stopped_leading) return invalid("OnStoppedLeading callback must not be nil");
  if (!c.lock) return invalid("Lock must not be nil.");
  if (c.lock->Identity().empty()) return invalid("Lock identity is empty");
  if (c.lease_duration % std::chrono::seconds(1) != std::chrono::nanoseconds(0)) {
    return invalid(
        "leaseDuration must be a whole number of seconds: the lock records "
        "leaseDurationSeconds, and that is how long other candidates wait (" +
        SecondsText(c.lease_duration) + " would be read as " +
        SecondsText(std::chrono::floor<std::chrono::seconds>(c.lease_duration)) +
        ", before this leader would stop)");
  }
  if (c.max_clock_rate_drift < 0 || c.max_clock_rate_drift >= 0.5) {
    return invalid("maxClockRateDrift must be in [0, 0.5)");
  }
  if (c.safety_margin.count() < 0) return invalid("safetyMargin must not be negative");
  if (c.drain_timeout.count() < 0) return invalid("drainTimeout must not be negative");
  if (UsableLease(c) <= c.retry_period) {
    return invalid("leaseDuration x (1 - maxClockRateDrift) - safetyMargin (" +
                   SecondsText(UsableLease(c)) + ") must be greater than retryPeriod (" +
                   SecondsText(c.retry_period) +
                   "): a leader must be able to renew before it has to stop");
  }
  return Status::Ok();
}

struct Elector::State {
  explicit State(ElectionConfig c)
      : config(std::move(c)), notifier(config.callbacks.on_new_leader) {}
  ~State() {
    for (auto& worker : workers) {
      if (worker.thread.joinable()) worker.thread.join();
    }
  }

  ElectionConfig config;
  Clock& clock() const { return *config.clock; }

  mutable std::mutex mu;
  // What was last seen of the record, and when (local monotonic clock).
  std::optional<ObservedRecord> observed;
  Clock::TimePoint observed_time{};
  std::string reported_leader;
  bool leading = false;
  std::optional<LeaderTerm> term;
  Clock::TimePoint last_renew_sent{};
  bool end_of_term = false;  // coordinated: preferredHolder names someone else
  // A graceful handover is waiting for the term's work: renewals go on although the term's
  // token fired (and, coordinated, although preferredHolder names someone else).
  bool draining = false;
  // The version of our latest successful write: a record after it is someone else's.
  int64_t own_version = 0;
  // Yield(): the current term's guard (set while a term runs) and whether Yield ended it.
  TermGuard* guard = nullptr;
  bool yielded = false;
  // The current term's stop token: once it fired we no longer lead, even while the Run thread
  // is still inside a hung call.
  std::stop_token term_token;
  bool LeadingLocked() const { return leading && !term_token.stop_requested(); }
  ElectorMetrics metrics;
  // Requested by the lock's watch: wakes a waiting follower to re-evaluate the lease.
  std::stop_source wake_source;
  // Records the watch delivered so far: a change that arrives between a look at the record and
  // the sleep that follows (before wake_source exists) must still cut that sleep short.
  uint64_t watched_changes = 0;
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

  Notifier notifier;

  Lock& lock() { return *config.lock; }
  std::string identity() const { return config.lock->Identity(); }
  int lease_seconds() const {
    return static_cast<int>(std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::seconds>(config.lease_duration).count()));
  }

  // Remembers a record read, written or watched; a change of bytes stamps observed_time.
  // Every record read, written or watched goes through here. One written after our own last
  // write that names another holder (an operator's forced release, a controller's assignment)
  // or, coordinated, prefers another one, ends the term at once, however it was seen: on the
  // watch, or on the GET of a renewal whose fast path conflicted (client-go would keep leading
  // until its renew deadline, while the new holder already leads).
  void Observe(const ObservedRecord& record) {
    std::string new_leader;
    std::optional<std::stop_source> end_term;
    {
      std::lock_guard lock(mu);
      // Older than what we know (a watch event that arrived after a newer GET or write): it
      // would restamp observed_time and bring back a holder that is gone.
      if (observed && record.version != 0 && record.version < observed->version) return;
      if (!observed || observed->raw != record.raw) observed_time = clock().now();
      observed = record;
      const std::string& holder = observed->record.holder_identity;
      if (holder != reported_leader) {
        reported_leader = holder;
        new_leader = holder;
      }
      end_term = EndedByLocked(record);
    }
    if (!new_leader.empty()) notifier.Notify(new_leader);
    // Outside the lock: the term token's stop callbacks (the user's too) may call the elector.
    if (end_term) end_term->request_stop();
  }

  // The current term's guard, when `record` ends that term (see Observe).
  std::optional<std::stop_source> EndedByLocked(const ObservedRecord& record) {
    if (!leading || guard == nullptr || record.version <= own_version) return std::nullopt;
    bool given_away = record.record.holder_identity != identity();
    bool preferred_other =
        config.coordinated && !record.record.preferred_holder.empty() && !draining;
    if (!given_away && !preferred_other) return std::nullopt;
    end_of_term = !given_away;  // preempted: release once drained; given away: nothing to release
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
      if (observed) end_term = EndedByLocked(*observed);
      if (yielded) end_term = g.source();
    }
    if (end_term) end_term->request_stop();
  }

  // The term ended while a call was under way (Observe saw the lease given away): the call must
  // not go on to write.
  bool TermEnded() const {
    std::lock_guard lock(mu);
    return leading && term_token.stop_requested();
  }

  // From the lock's watch: no request is made; a waiting follower re-evaluates.
  void OnWatched(const ObservedRecord& record) {
    Observe(record);
    std::lock_guard lock(mu);
    ++watched_changes;
    wake_source.request_stop();
  }

  // The lease is held by someone, by our observation: holder set and observedTime + duration
  // in the future.
  bool ObservedValidLocked(Clock::TimePoint now) const {
    if (!observed || observed->record.holder_identity.empty()) return false;
    return observed_time + std::chrono::seconds(observed->record.lease_duration_seconds) > now;
  }
  bool ObservedValid() const {
    std::lock_guard lock(mu);
    return ObservedValidLocked(clock().now());
  }
  // Validly held by another candidate: nothing to try until that changes.
  bool HeldByOtherLocked(Clock::TimePoint now) const {
    return ObservedValidLocked(now) && observed->record.holder_identity != identity();
  }
  bool HeldByOther() const {
    std::lock_guard lock(mu);
    return HeldByOtherLocked(clock().now());
  }

  LeaderElectionRecord DesiredRecord() {
    LeaderElectionRecord r;
    r.holder_identity = identity();
    r.lease_duration_seconds = lease_seconds();
    r.acquire_time = r.renew_time = clock().wall_now();
    return r;
  }

  // Records a successful write of ours that replaced the record `replaced` (nullptr: created).
  int64_t Written(const ObservedRecord& written, Clock::TimePoint sent,
                  const ObservedRecord* replaced) {
    {
      std::lock_guard lock(mu);
      own_version = std::max(own_version, written.version);
      // Others restart their count only when the record's bytes change: a write that changed
      // nothing (a ConfigMap record keeps whole seconds, and the server keeps such a no-op
      // write's resourceVersion) must not move our stop deadline either.
      if (replaced == nullptr || replaced->raw != written.raw) last_renew_sent = sent;
    }
    Observe(written);
    return written.version;
  }

  // The record for a fast-path renewal: the last one seen, while leading and while it is valid
  // and still names us (client-go's IsLeader(): the watch may have shown that someone, e.g. an
  // operator, gave the lease away, and the cached version would overwrite that) and, in
  // coordinated mode, while no preferredHolder ends our term.
  std::optional<ObservedRecord> OwnCachedRecord(Clock::TimePoint now) {
    std::lock_guard lock(mu);
    if (!leading || !observed || !ObservedValidLocked(now)) return std::nullopt;
    const LeaderElectionRecord& record = observed->record;
    if (record.holder_identity != identity()) return std::nullopt;
    if (config.coordinated && !record.preferred_holder.empty() && !draining) return std::nullopt;
    return observed;
  }

  // One attempt of client-go's tryAcquireOrRenew. Returns the version written on success.
  // `timeout` bounds the whole attempt: each call gets what is left of it (a hung server must not
  // stretch one attempt to several timeouts).
  std::optional<int64_t> TryAcquireOrRenew(Clock::Duration timeout) {
    Budget budget(timeout);
    if (config.coordinated) return TryRenewHeld(budget);
    LeaderElectionRecord desired = DesiredRecord();
    Clock::TimePoint sent = clock().now();
    // Fast path: the leader updates with its cached version, no GET.
    std::optional<ObservedRecord> cached = OwnCachedRecord(sent);
    if (cached) {
      desired.acquire_time = cached->record.acquire_time;
      desired.leader_transitions = cached->record.leader_transitions;
      auto written = lock().Update(desired, budget.left());
      if (written.ok()) return Written(*written, sent, &*cached);
      if (budget.spent()) return std::nullopt;
    }
    // Slow path.
    {
      std::lock_guard lock(mu);
      if (leading) ++metrics.slow_path_total;
    }
    auto current = lock().Get(budget.left());
    if (!current.ok()) {
      if (!current.status().IsNotFound() || budget.spent()) return std::nullopt;
      auto written = lock().Create(desired, budget.left());
      if (!written.ok()) return std::nullopt;
      return Written(*written, sent, nullptr);
    }
    Observe(*current);
    const LeaderElectionRecord& old = current->record;
    if (TermEnded() || HeldByOther()) return std::nullopt;
    if (old.holder_identity == identity()) {
      desired.acquire_time = old.acquire_time;
      desired.leader_transitions = old.leader_transitions;
    } else {
      desired.leader_transitions = old.leader_transitions + 1;
    }
    if (budget.spent()) return std::nullopt;
    auto written = lock().Update(desired, budget.left());
    if (!written.ok()) return std::nullopt;
    return Written(*written, sent, &*current);
  }

  // Renews only a lease that names us, keeping every field but renewTime and the duration: the
  // coordinated leader (the controller assigns the lease) and a draining one (it must not take
  // back a lease that was given away meanwhile).
  // Unlike client-go, the coordinated leader renews on the fast path (cached version, no GET):
  // any change by the controller (preferredHolder, a new holder) changes the version, so the
  // write fails with Conflict and the slow path reads it.
  std::optional<int64_t> TryRenewHeld(Budget& budget) {
    Clock::TimePoint sent = clock().now();
    std::optional<ObservedRecord> cached = OwnCachedRecord(sent);
    if (cached) {
      auto written = lock().Update(RenewedHeld(cached->record), budget.left());
      if (written.ok()) return Written(*written, sent, &*cached);
      if (budget.spent()) return std::nullopt;
    }
    {
      std::lock_guard lock(mu);
      if (leading) ++metrics.slow_path_total;
    }
    auto current = lock().Get(budget.left());
    if (!current.ok()) return std::nullopt;
    Observe(*current);
    LeaderElectionRecord record = current->record;
    if (!ObservedValid()) return std::nullopt;
    if (record.holder_identity != identity()) return std::nullopt;
    if (config.coordinated && !record.preferred_holder.empty()) {
      // The controller prefers another candidate: end the term now and hand over (a draining
      // term has ended already and renews until its work stopped).
      std::lock_guard lock(mu);
      if (!draining) {
        if (leading) end_of_term = true;
        return std::nullopt;
      }
    }
    if (budget.spent()) return std::nullopt;
    auto written = lock().Update(RenewedHeld(record), budget.left());
    if (!written.ok()) return std::nullopt;
    return Written(*written, sent, &*current);
  }

  // The record (holder == us; strategy, acquireTime, transitions kept) renewed now. Like
  // client-go's coordinated candidate it writes our lease duration, so the term's deadline
  // (computed from lease_duration) and what others see in the record agree.
  LeaderElectionRecord RenewedHeld(LeaderElectionRecord record) {
    record.renew_time = clock().wall_now();
    record.lease_duration_seconds = lease_seconds();
    return record;
  }

  // The latest moment this leader may still act: see "Stop before anyone can take over".
  Clock::TimePoint MustStopBy() const {
    std::lock_guard lock(mu);
    return last_renew_sent + UsableLease(config);
  }

  // Sleeps until `deadline` or until the lock's watch reports a change (or stop).
  // `seen` is watched_changes when the caller last looked at the record: a later change ends
  // the wait at once.
  void SleepUntilChange(Clock::TimePoint deadline, std::stop_token stop, uint64_t seen) {
    std::stop_source wake;
    {
      std::lock_guard lock(mu);
      if (watched_changes != seen) return;
      wake_source = wake;
    }
    std::stop_callback forward(stop, [&] { wake.request_stop(); });
    clock().SleepUntil(deadline, wake.get_token());
  }

  // Watching follower: no request until the observed lease expires or the record changes.
  void WaitForChangeOrExpiry(std::stop_token stop) {
    Clock::TimePoint expiry;
    uint64_t seen;
    {
      std::lock_guard lock(mu);
      if (!HeldByOtherLocked(clock().now())) return;  // changed meanwhile: attempt now
      expiry = observed_time + std::chrono::seconds(observed->record.lease_duration_seconds);
      seen = watched_changes;
    }
    SleepUntilChange(expiry, stop, seen);
  }

  // Returns true once leading, false when stopped.
  bool Acquire(std::stop_token stop, const LockWatch* watch) {
    while (!stop.stop_requested()) {
      bool watching = watch != nullptr && watch->active();
      if (watching && HeldByOther()) {
        WaitForChangeOrExpiry(stop);  // no request while someone else validly holds it
        continue;
      }
      uint64_t seen;
      {
        std::lock_guard lock(mu);
        seen = watched_changes;
      }
      if (auto version = TryAcquireOrRenew(config.renew_deadline)) {
        StartTerm(*version);
        return true;
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
        SleepUntilChange(retry_at, stop, seen);
      } else {
        clock().SleepUntil(retry_at, stop);
      }
    }
    return false;
  }

  void StartTerm(int64_t version) {
    std::lock_guard lock(mu);
    leading = true;
    term = LeaderTerm{identity(), static_cast<uint64_t>(version), clock().wall_now()};
    metrics.is_leader = true;
    ++metrics.transitions_total;
    ++metrics.renew_total;
  }

  // Renews every retry period until a renewal fails for renew_deadline or the guard fires
  // (deadline or election stop).
  void Renew(TermGuard& guard) {
    std::stop_token token = guard.token();
    while (!guard.fired()) {
      if (!clock().SleepFor(config.retry_period, token)) return;
      Clock::TimePoint deadline = clock().now() + config.renew_deadline;
      bool renewed = false;
      while (!guard.fired() && clock().now() < deadline) {
        Clock::TimePoint start = clock().now();
        // An attempt that outlasts the term is of no use: it gets what is left until the stop
        // deadline when that comes first, so that after a hung server there is still time to
        // try again (on another endpoint).
        auto left =
            std::chrono::duration_cast<Clock::Duration>(std::min(deadline, MustStopBy()) - start);
        if (left <= Clock::Duration::zero()) return;
        if (TryAcquireOrRenew(left)) {
          renewed = true;
          std::lock_guard lock(mu);
          ++metrics.renew_total;
          metrics.last_renew_latency = clock().now() - start;
          break;
        }
        {
          std::lock_guard lock(mu);
          ++metrics.failed_attempts_total;
          if (end_of_term) return;
        }
        // Attempts start a retry period apart, as client-go's poll does: after one that
        // failed slowly (a timeout) the next follows at once.
        clock().SleepUntil(std::min(deadline, start + config.retry_period), token);
      }
      if (!renewed) return;
      guard.Extend(MustStopBy());
      JoinFinishedWorkers();
    }
  }

  // A graceful handover's wait for the term's work (`finished` fires once on_started_leading
  // returned), renewing every retry period meanwhile. True once the work stopped while the lease
  // was still ours; false when drain_timeout passed, when the lease could no longer be kept
  // (MustStopBy passed without a renewal) or when the watch showed it given to someone else.
  bool Drain(std::stop_token finished) {
    {
      std::lock_guard lock(mu);
      draining = true;
    }
    bool drained = RenewUntilFinished(finished, clock().now() + config.drain_timeout);
    std::lock_guard lock(mu);
    draining = false;
    return drained;
  }

  bool RenewUntilFinished(std::stop_token finished, Clock::TimePoint give_up) {
    Clock::TimePoint next_renewal = clock().now() + config.retry_period;
    while (!finished.stop_requested()) {
      Clock::TimePoint now = clock().now();
      Clock::TimePoint stop_by = MustStopBy();
      uint64_t seen;
      {
        std::lock_guard lock(mu);
        if (!observed || observed->record.holder_identity != identity()) return false;
        seen = watched_changes;
      }
      if (now >= give_up || now >= stop_by) return false;
      if (now >= next_renewal) {
        Budget budget(
            std::min<Clock::Duration>({config.renew_deadline, stop_by - now, give_up - now}));
        if (TryRenewHeld(budget)) {
          std::lock_guard lock(mu);
          ++metrics.renew_total;
        }
        next_renewal = now + config.retry_period;
        continue;
      }
      SleepUntilChange(std::min({next_renewal, give_up, stop_by}), finished, seen);
    }
    return true;
  }

  void EndTerm() {
    std::lock_guard lock(mu);
    end_of_term = false;
    leading = false;
    term.reset();
    // The fired token must not outlive its term: the next term is "leading" from StartTerm on,
    // before its own guard's token is stored.
    term_token = {};
    metrics.is_leader = false;
  }

  // client-go's release: GET, and if still ours write holder "" with duration 1 s; retry on
  // Conflict until renew_deadline.
  void Release() {
    Clock::TimePoint deadline = clock().now() + config.renew_deadline;
    while (clock().now() < deadline) {
      auto left = std::chrono::duration_cast<Clock::Duration>(deadline - clock().now());
      auto current = lock().Get(left);
      if (!current.ok() || current->record.holder_identity != identity()) return;
      LeaderElectionRecord released;
      released.lease_duration_seconds = 1;
      released.acquire_time = released.renew_time = clock().wall_now();
      released.leader_transitions = current->record.leader_transitions;
      if (config.coordinated) {
        // The controller's fields stay: it assigns the next holder of a released lease.
        released.strategy = current->record.strategy;
        released.preferred_holder = current->record.preferred_holder;
      }
      auto written = lock().Update(released, left);
      if (written.ok()) {
        Observe(*written);
        return;
      }
      if (!written.status().IsConflict()) return;
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
  auto watch = st.lock().Watch([&st](const ObservedRecord& r) { st.OnWatched(r); });
  while (!stop.stop_requested()) {
    if (!st.Acquire(stop, watch.get())) break;
    LeaderTerm term;
    {
      std::lock_guard lock(st.mu);
      term = *st.term;
    }
    st.lock().RecordEvent("LeaderElection", term.identity + " became leader");
    TermGuard guard(st.config.clock, st.MustStopBy(), stop);
    st.Guard(guard);
    std::stop_source finished;
    {
      std::lock_guard lock(st.mu);
      st.workers.push_back({finished, std::jthread([fn = st.config.callbacks.on_started_leading,
                                                    term, token = guard.token(), finished] {
                              fn(token, term);
                              finished.request_stop();
                            })});
    }
    st.Renew(guard);
    guard.Fire();  // the leader's work stops before anything else happens
    bool stopped = stop.stop_requested();
    bool yielded = false;
    bool preempted;
    {
      std::lock_guard lock(st.mu);
      std::swap(yielded, st.yielded);
      preempted = st.end_of_term;
    }
    // A graceful end releases the lease so the next leader need not wait it out (a preempted
    // coordinated leader too, where upstream candidates just stop renewing), but only once the
    // term's work has stopped: until then the lease is renewed.
    bool handover = (stopped && st.config.release_on_cancel) || preempted || yielded;
    bool drained = handover && st.Drain(finished.get_token());
    {
      std::lock_guard lock(st.mu);
      st.guard = nullptr;
    }
    st.EndTerm();
    if (drained) st.Release();
    st.lock().RecordEvent(
        "LeaderElection",
        term.identity + (handover && !drained ? " stopped leading without releasing the "
                                                "lease (its work had not stopped within "
                                                "drainTimeout, or the lease was no longer ours)"
                                              : " stopped leading"));
    st.config.callbacks.on_stopped_leading();
    if (stopped) break;
    if (yielded) {
      // Still a candidate, but others get the first chance at the released lease.
      if (!st.clock().SleepFor(st.config.recontend_after.value_or(st.config.retry_period), stop)) {
        break;
      }
      continue;
    }
    if (!st.config.recontend_after) break;
    if (!st.clock().SleepFor(*st.config.recontend_after, stop)) break;
  }
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
  return state_->observed ? state_->observed->record.holder_identity : "";
}

std::optional<LeaderTerm> Elector::CurrentTerm() const {
  std::lock_guard lock(state_->mu);
  if (!state_->LeadingLocked()) return std::nullopt;
  return state_->term;
}

bool Elector::Healthy() const {
  const State& st = *state_;
  std::lock_guard lock(st.mu);
  if (!st.leading) return true;
  return st.clock().now() - st.observed_time <=
         st.config.lease_duration + st.config.health_tolerance;
}

ElectorMetrics Elector::metrics() const {
  std::lock_guard lock(state_->mu);
  ElectorMetrics m = state_->metrics;
  m.is_leader = state_->LeadingLocked();
  return m;
}

const ElectionConfig& Elector::config() const { return state_->config; }

ElectionHandle::ElectionHandle(std::shared_ptr<Elector> elector)
    : elector_(std::move(elector)),
      thread_([e = elector_](std::stop_token stop) { e->Run(stop); }) {}

ElectionHandle::~ElectionHandle() { Stop(); }

void ElectionHandle::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

}  // namespace tenure
