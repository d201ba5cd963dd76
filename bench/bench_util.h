// Small helpers the benchmarks share: process memory, percentiles and the closed-loop harness.
#pragma once

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tenure::bench {

// The one flag of the micro benchmarks, --calls N (`fallback` without it); any other flag ends
// the program with its usage.
inline int CallsFlag(int argc, char** argv, int fallback, const char* program) {
  int calls = fallback;
  for (int i = 1; i < argc; i += 2) {
    if (std::string(argv[i]) == "--calls" && i + 1 < argc) {
      calls = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "unknown flag %s (usage: %s [--calls N])\n", argv[i], program);
      std::exit(2);
    }
  }
  return calls;
}

// A /proc/PID/status field in KiB ("VmRSS:", "VmHWM:") of this process or of `pid`, -1 when
// absent.
inline long ProcStatusKiB(const std::string& field, int pid = 0) {
  std::ifstream status(pid > 0 ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
  }
  return -1;
}
inline long RssKiB(int pid = 0) { return ProcStatusKiB("VmRSS:", pid); }
inline long PeakRssKiB(int pid = 0) { return ProcStatusKiB("VmHWM:", pid); }

// The CPU time this process has used, user and system, in seconds.
inline double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The CPU time another process has used, user and system, in seconds (/proc/PID/stat); 0 when it
// cannot be read.
inline double ProcessCpuSecondsOf(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');  // the command name may hold spaces
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// The machine's CPU time since boot in clock ticks (/proc/stat): what every process ran (user,
// nice, system, interrupts) and all of it with idle, I/O wait and the hypervisor's steal.
struct MachineTicks {
  double busy = 0;
  double total = 0;
};
inline MachineTicks MachineCpuTicks() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  MachineTicks t;
  t.busy = user + nice + system + irq + softirq;
  t.total = t.busy + idle + iowait + steal;
  return t;
}

// The p-quantile (0..1) of `v`, nearest rank below.
inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

// What one closed-loop run measured.
struct LoopResult {
  double rate = 0;  // acknowledged operations per second
  double p50_ms = 0;
  double p99_ms = 0;
  long errors = 0;
  // The whole machine's CPU during the run (every process: server, clients, etcd), in cores
  // busy and in microseconds of CPU per acknowledged operation.
  double busy_cores = 0;
  double cpu_us_per_op = 0;
};

// Runs `clients` threads in a closed loop for `seconds`. Each thread first calls prepare(i),
// which returns its step (or nullptr when setup failed); after a common start, it calls
// step(n) back to back, timing each call (true: acknowledged). Prints one line
// ("<label>, N clients: rate <unit>/s p50 p99 ...") and returns the figures.
using Step = std::function<bool(long n)>;
inline LoopResult ClosedLoop(const std::string& label, const char* unit, int clients, int seconds,
                             const std::function<Step(int)>& prepare) {
  using Clock = std::chrono::steady_clock;
  std::vector<std::vector<double>> latencies(static_cast<size_t>(clients));
  std::atomic<long> errors{0};
  std::atomic<bool> go{false}, stop{false};
  std::mutex start_mu;
  std::condition_variable start_cv;
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      pthread_setname_np(pthread_self(), "bench-client");  // tells them apart in perf
      Step step = prepare(i);
      if (!step) {
        ++errors;
        return;
      }
      {
        std::unique_lock lock(start_mu);
        start_cv.wait(lock, [&] { return go.load(); });
      }
      auto& mine = latencies[static_cast<size_t>(i)];
      mine.reserve(static_cast<size_t>(seconds) * 20000);
      for (long n = 1; !stop.load(); ++n) {
        auto start = Clock::now();
        bool ok = step(n);
        double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (ok) {
          mine.push_back(ms);
        } else {
          ++errors;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let clients connect
  {
    std::lock_guard lock(start_mu);
    go = true;
  }
  start_cv.notify_all();
  auto start = Clock::now();
  const MachineTicks cpu_start = MachineCpuTicks();
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  const MachineTicks cpu_end = MachineCpuTicks();
  stop = true;
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  LoopResult result;
  result.rate = static_cast<double>(all.size()) / elapsed;
  result.p50_ms = Percentile(all, 0.50);
  result.p99_ms = Percentile(all, 0.99);
  result.errors = errors.load();
  const double cores = std::thread::hardware_concurrency();
  if (cpu_end.total > cpu_start.total) {
    result.busy_cores = cores * (cpu_end.busy - cpu_start.busy) / (cpu_end.total - cpu_start.total);
  }
  if (result.rate > 0) result.cpu_us_per_op = result.busy_cores * 1e6 / result.rate;
  std::printf(
      "%s, %2d clients: %8.0f %s/s  p50 %.2f ms  p99 %.2f ms  (%zu ok, %ld errors, %.1fs; "
      "machine %.2f cores busy, %.0f us of CPU per op)\n",
      label.c_str(), clients, result.rate, unit, result.p50_ms, result.p99_ms, all.size(),
      result.errors, elapsed, result.busy_cores, result.cpu_us_per_op);
  std::fflush(stdout);
  return result;
}

}  // namespace tenure::bench
