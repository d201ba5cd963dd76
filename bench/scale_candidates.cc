// One candidate process of the scale benchmark (bench/scale_bench.py): COUNT electors, one per
// Lease <prefix>-<first> .. <prefix>-<first+count-1>, all sharing one Cluster (its connection pool
// and its one watch of the namespace's Leases), at the library's default timings unless told
// otherwise. It prints JSON lines on stdout:
//   {"type":"term","lease":I,"unix_ms":T}            an elector started leading lease I
//   {"type":"lost","lease":I,"unix_ms":T}            a term ended without being asked to
//   {"type":"report",...}                            every --report-ms, and once on SIGTERM
// A report's counters are cumulative since start, except the renewal histogram's percentiles,
// which cover the time since the previous report ("interval") and since start ("total").
// SIGUSR1 opens the measurement window: the last report (on SIGTERM) then also carries the
// window's renewal histogram as [bucket, count] pairs, so that the driver can merge processes.
//   scale_candidates --kubeconfig F --namespace NS --prefix P --first A --count C --identity ID
//                    [--lease-seconds 15 --renew-seconds 10 --retry-seconds 2] [--report-ms 1000]
//                    [--connections N (default: the library's)] [--label KEY=VALUE]...
// With --label, every Lease carries the labels and the process's watch asks only for Leases that
// carry them (KubeLockOptions::labels).
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "tenure/tenure.h"

using namespace std::chrono_literals;

namespace {

int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Latencies in log-spaced buckets (2 % apart from 10 us to 100 s): lock-free to record from
// thousands of elector threads, small whatever the run's length.
class LatencyHistogram {
 public:
  static constexpr int kBuckets = 820;
  void Record(std::chrono::nanoseconds d) {
    double us = std::max(1.0, static_cast<double>(d.count()) / 1000.0);
    int b = static_cast<int>(std::log(us / 10.0) / std::log(1.02));
    b = std::clamp(b, 0, kBuckets - 1);
    counts_[static_cast<size_t>(b)].fetch_add(1, std::memory_order_relaxed);
    RaiseTo(interval_max_ns_, d.count());
    RaiseTo(window_max_ns_, d.count());
  }
  struct Snapshot {
    std::array<uint64_t, kBuckets> counts{};
    int64_t max_ns = 0;
    uint64_t total() const {
      uint64_t n = 0;
      for (uint64_t c : counts) n += c;
      return n;
    }
    // The upper edge of the bucket holding the p-quantile, in milliseconds.
    double QuantileMs(double p) const {
      uint64_t n = total();
      if (n == 0) return 0;
      uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(n)));
      uint64_t seen = 0;
      for (int b = 0; b < kBuckets; ++b) {
        seen += counts[static_cast<size_t>(b)];
        if (seen >= rank && seen > 0) return 10.0 * std::pow(1.02, b + 1) / 1000.0;
      }
      return static_cast<double>(max_ns) / 1e6;
    }
    Snapshot Minus(const Snapshot& earlier) const {
      Snapshot d;
      for (size_t b = 0; b < counts.size(); ++b) d.counts[b] = counts[b] - earlier.counts[b];
      return d;
    }
  };
  // The counts so far, with the maximum since the previous Take (each report's is its
  // interval's).
  Snapshot Take() {
    Snapshot s = Counts();
    s.max_ns = interval_max_ns_.exchange(0);
    return s;
  }
  Snapshot Counts() const {
    Snapshot s;
    for (size_t b = 0; b < counts_.size(); ++b) s.counts[b] = counts_[b].load();
    return s;
  }
  // The maximum since the previous call (the measurement window's).
  int64_t TakeWindowMax() { return window_max_ns_.exchange(0); }

 private:
  static void RaiseTo(std::atomic<int64_t>& max, int64_t ns) {
    int64_t seen = max.load(std::memory_order_relaxed);
    while (ns > seen && !max.compare_exchange_weak(seen, ns)) {
    }
  }
  std::array<std::atomic<uint64_t>, kBuckets> counts_{};
  std::atomic<int64_t> interval_max_ns_{0}, window_max_ns_{0};
};

LatencyHistogram g_renewals;
std::atomic<uint64_t> g_update_failures{0};
std::atomic<bool> g_stopping{false};
std::mutex g_out_mu;

void Emit(const std::string& line) {
  std::lock_guard lock(g_out_mu);
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

// Times the lock's renewals: Update is the renewal (and, after a Conflict, a takeover's acquire;
// after start-up nearly every Update is a renewal, which is what the report's histogram is about).
class TimedLock final : public tenure::Lock {
 public:
  explicit TimedLock(std::shared_ptr<tenure::Lock> inner) : inner_(std::move(inner)) {}
  tenure::Result<tenure::ObservedRecord> Get(Timeout t) override { return inner_->Get(t); }
  tenure::Result<tenure::ObservedRecord> Create(const tenure::LeaderElectionRecord& r,
                                                Timeout t) override {
    return inner_->Create(r, t);
  }
  tenure::Result<tenure::ObservedRecord> Update(const tenure::LeaderElectionRecord& r,
                                                Timeout t) override {
    auto start = std::chrono::steady_clock::now();
    auto result = inner_->Update(r, t);
    if (result.ok()) {
      g_renewals.Record(std::chrono::steady_clock::now() - start);
    } else {
      g_update_failures.fetch_add(1, std::memory_order_relaxed);
    }
    return result;
  }
  // A takeover or release at a version seen (no read first): passed on, not timed as a renewal.
  tenure::Result<tenure::ObservedRecord> UpdateAt(const tenure::LeaderElectionRecord& r,
                                                  int64_t version, Timeout t) override {
    return inner_->UpdateAt(r, version, t);
  }
  std::string Identity() const override { return inner_->Identity(); }
  std::string Describe() const override { return inner_->Describe(); }
  std::unique_ptr<tenure::LockWatch> Watch(
      std::function<void(const tenure::ObservedRecord&)> fn) override {
    return inner_->Watch(std::move(fn));
  }

 private:
  std::shared_ptr<tenure::Lock> inner_;
};

struct Flags {
  std::string kubeconfig, namespace_ = "default", prefix = "scale", identity;
  int first = 0, count = 0;
  int lease_seconds = 15, renew_seconds = 10, retry_seconds = 2;
  int report_ms = 1000;
  int connections = 0;   // 0: the library's default (ClusterOptions::max_connections)
  int pool_threads = 0;  // 0: a thread per elector (ElectionHandle); else an ElectionPool's
  std::map<std::string, std::string> labels;  // on every Lease, and the watch's selector
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "scale_candidates: %s\nusage: scale_candidates --kubeconfig F --namespace NS "
               "--prefix P --first A --count C --identity ID [--lease-seconds 15] "
               "[--renew-seconds 10] [--retry-seconds 2] [--report-ms 1000] [--connections N] "
               "[--pool-threads N] [--label KEY=VALUE]...\n",
               why.c_str());
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; i += 2) {
    std::string name = argv[i];
    if (i + 1 >= argc) Usage(name + " needs a value");
    std::string value = argv[i + 1];
    auto number = [&] {
      char* end = nullptr;
      long v = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || v < 0 || v > 10'000'000) {
        Usage(name + ": \"" + value + "\" is not a count");
      }
      return static_cast<int>(v);
    };
    if (name == "--kubeconfig") {
      f.kubeconfig = value;
    } else if (name == "--namespace") {
      f.namespace_ = value;
    } else if (name == "--prefix") {
      f.prefix = value;
    } else if (name == "--identity") {
      f.identity = value;
    } else if (name == "--first") {
      f.first = number();
    } else if (name == "--count") {
      f.count = number();
    } else if (name == "--lease-seconds") {
      f.lease_seconds = number();
    } else if (name == "--renew-seconds") {
      f.renew_seconds = number();
    } else if (name == "--retry-seconds") {
      f.retry_seconds = number();
    } else if (name == "--report-ms") {
      f.report_ms = std::max(100, number());
    } else if (name == "--connections") {
      f.connections = number();
    } else if (name == "--pool-threads") {
      f.pool_threads = number();
    } else if (name == "--label") {
      size_t equals = value.find('=');
      if (equals == std::string::npos || equals == 0) {
        Usage("--label: \"" + value + "\" is not KEY=VALUE");
      }
      f.labels[value.substr(0, equals)] = value.substr(equals + 1);
    } else {
      Usage("unknown flag " + name);
    }
  }
  if (f.kubeconfig.empty()) Usage("--kubeconfig is required");
  if (f.identity.empty()) Usage("--identity is required");
  if (f.count <= 0) Usage("--count must be at least 1");
  return f;
}

struct Elector {
  std::shared_ptr<tenure::Elector> elector;
  std::unique_ptr<tenure::ElectionHandle> handle;
};

long Threads() { return tenure::bench::ProcStatusKiB("Threads:"); }

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // every thread made below inherits the mask
  tenure::SetLogLevel(tenure::LogLevel::kWarning);

  tenure::ClusterOptions options{.kubeconfig = flags.kubeconfig};
  if (flags.connections > 0) options.max_connections = static_cast<size_t>(flags.connections);
  auto cluster = tenure::Cluster::Connect(options);
  if (!cluster.ok()) {
    std::fprintf(stderr, "scale_candidates: %s\n", cluster.status().ToString().c_str());
    return 1;
  }
  std::shared_ptr<tenure::ElectionPool> pool;
  if (flags.pool_threads > 0) {
    auto made = tenure::ElectionPool::Create({.threads = static_cast<size_t>(flags.pool_threads)});
    if (!made.ok()) {
      std::fprintf(stderr, "scale_candidates: %s\n", made.status().ToString().c_str());
      return 1;
    }
    pool = *made;
  }
  std::atomic<int> leading{0};
  std::atomic<uint64_t> terms{0}, lost{0};
  std::vector<Elector> electors(static_cast<size_t>(flags.count));
  for (int i = 0; i < flags.count; ++i) {
    int lease = flags.first + i;
    tenure::ElectionConfig config;
    config.lock = std::make_shared<TimedLock>(
        tenure::NewLeaseLock(*cluster, {.namespace_ = flags.namespace_,
                                        .name = flags.prefix + "-" + std::to_string(lease),
                                        .identity = flags.identity,
                                        .publish_events = false,
                                        .labels = flags.labels}));
    config.lease_duration = std::chrono::seconds(flags.lease_seconds);
    config.renew_deadline = std::chrono::seconds(flags.renew_seconds);
    config.retry_period = std::chrono::seconds(flags.retry_seconds);
    config.callbacks.on_started_leading = [&, lease](std::stop_token, const tenure::LeaderTerm&) {
      ++leading;
      ++terms;
      Emit(R"({"type":"term","lease":)" + std::to_string(lease) + R"(,"unix_ms":)" +
           std::to_string(UnixMs()) + "}");
    };
    config.callbacks.on_stopped_leading = [&, lease] {
      --leading;
      if (g_stopping.load()) return;
      ++lost;
      Emit(R"({"type":"lost","lease":)" + std::to_string(lease) + R"(,"unix_ms":)" +
           std::to_string(UnixMs()) + "}");
    };
    auto elector = tenure::Elector::Create(std::move(config));
    if (!elector.ok()) {
      std::fprintf(stderr, "scale_candidates: %s\n", elector.status().ToString().c_str());
      return 1;
    }
    Elector& e = electors[static_cast<size_t>(i)];
    e.elector = std::move(*elector);
    e.handle = pool ? std::make_unique<tenure::ElectionHandle>(e.elector, pool)
                    : std::make_unique<tenure::ElectionHandle>(e.elector);
  }

  // Reports until SIGTERM or SIGINT, then a last one.
  LatencyHistogram::Snapshot total{}, window_start{};
  auto report = [&](bool last) {
    LatencyHistogram::Snapshot now = g_renewals.Take();
    LatencyHistogram::Snapshot interval = now.Minus(total);
    interval.max_ns = now.max_ns;
    total.counts = now.counts;
    total.max_ns = std::max(total.max_ns, now.max_ns);
    int following = 0;
    for (const Elector& e : electors) {
      if (!e.elector->IsLeader() && !e.elector->Leader().empty()) ++following;
    }
    std::string window;
    if (last) {
      LatencyHistogram::Snapshot in_window = now.Minus(window_start);
      window = R"(,"window_max_ms":)" +
               std::to_string(static_cast<double>(g_renewals.TakeWindowMax()) / 1e6) +
               R"(,"window":[)";
      for (size_t b = 0; b < in_window.counts.size(); ++b) {
        if (in_window.counts[b] == 0) continue;
        if (window.back() != '[') window += ',';
        window += "[" + std::to_string(b) + "," + std::to_string(in_window.counts[b]) + "]";
      }
      window += "]";
    }
    char line[1024];
    std::snprintf(
        line, sizeof line,
        R"({"type":"report","last":%s,"unix_ms":%lld,"electors":%d,"leading":%d,"following":%d,)"
        R"("terms":%llu,"lost":%llu,"renewals":%llu,"update_failures":%llu,)"
        R"("interval":{"renewals":%llu,"p50_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f},)"
        R"("total":{"p50_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f},)"
        R"("requests":%llu,"cpu_s":%.3f,"rss_kib":%ld,"threads":%ld})",
        last ? "true" : "false", static_cast<long long>(UnixMs()), flags.count, leading.load(),
        following, static_cast<unsigned long long>(terms.load()),
        static_cast<unsigned long long>(lost.load()),
        static_cast<unsigned long long>(total.total()),
        static_cast<unsigned long long>(g_update_failures.load()),
        static_cast<unsigned long long>(interval.total()), interval.QuantileMs(0.5),
        interval.QuantileMs(0.99), static_cast<double>(interval.max_ns) / 1e6,
        total.QuantileMs(0.5), total.QuantileMs(0.99), static_cast<double>(total.max_ns) / 1e6,
        static_cast<unsigned long long>((*cluster)->requests()), tenure::bench::ProcessCpuSeconds(),
        tenure::bench::RssKiB(), Threads());
    std::string text = line;
    text.insert(text.size() - 1, window);
    Emit(text);
  };
  timespec period{flags.report_ms / 1000, (flags.report_ms % 1000) * 1'000'000L};
  for (;;) {
    int signal = sigtimedwait(&signals, nullptr, &period);
    if (signal == SIGTERM || signal == SIGINT) break;
    if (signal == SIGUSR1) {
      window_start = g_renewals.Counts();
      g_renewals.TakeWindowMax();
      continue;
    }
    report(false);
  }
  g_stopping = true;
  report(true);
  // The electors are not stopped one by one (10,000 joins would dominate the exit); their
  // leases expire as after a crash, which the driver knows.
  std::_Exit(0);
}
