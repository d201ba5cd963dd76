// What the dashboard's board costs per Lease: the bytes it keeps (allocated bytes, mallinfo2,
// around N Leases fed to a board alone) and the time it takes to apply one renewal event (a
// watch event's object as the shared watch delivers it, without managedFields); and the bytes
// its term history (TermArchive) keeps once every Lease's term is written. Figures in
// docs/performance.md ("The dashboard's cost at scale").
//   build/bench/dashboard_bench [--calls 10000]   (the number of Leases)
#include <malloc.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_util.h"

#include "api/time.h"
#include "dashboard/board.h"
#include "dashboard/term_archive.h"

int main(int argc, char** argv) {
  using namespace tenure;
  const int leases = bench::CallsFlag(argc, argv, 10000, "dashboard_bench");
  auto board = dashboard::Board::Detached({});
  if (!board.ok()) {
    std::fprintf(stderr, "%s\n", board.status().ToString().c_str());
    return 1;
  }
  const auto base = std::chrono::system_clock::now();
  std::vector<nlohmann::json> events;
  for (int i = 0; i < leases; ++i) {
    events.push_back(
        {{"apiVersion", "coordination.k8s.io/v1"},
         {"kind", "Lease"},
         {"metadata",
          {{"namespace", "scale-ns-" + std::to_string(i % 4)},
           {"name", "election-" + std::to_string(i)},
           {"resourceVersion", std::to_string(1000 + i)},
           {"uid", "0d1c8a6e-5a39-4a4e-8f0b-0d1c2b3a4f5e"},
           {"creationTimestamp", "2026-12-05T10:00:00Z"},
           {"labels", {{"tenure-scale/group", "s1"}}}}},
         {"spec",
          {{"holderIdentity", "scale-candidate-a" + std::to_string(i % 50) + "-process-0001"},
           {"leaseDurationSeconds", 15},
           {"acquireTime", api::FormatMicroTime(base)},
           {"renewTime", api::FormatMicroTime(base)},
           {"leaseTransitions", 0}}}});
  }
  const size_t before = mallinfo2().uordblks;
  for (const auto& e : events) (*board)->ApplyLease("ADDED", e);
  const size_t after = mallinfo2().uordblks;
  constexpr int kRounds = 10;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 1; r <= kRounds; ++r) {
    const std::string renewed = api::FormatMicroTime(base + std::chrono::seconds(2 * r));
    for (auto& e : events) {
      e["spec"]["renewTime"] = renewed;
      (*board)->ApplyLease("MODIFIED", e);
    }
  }
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
      (kRounds * static_cast<double>(leases));
  std::printf("leases                     %d\n", leases);
  std::printf("board bytes per Lease      %.0f\n",
              static_cast<double>(after - before) / static_cast<double>(leases));
  std::printf("renewal event applied in   %.2f us\n", ns / 1000);
  (*board)->Stop();

  char dir[] = "/tmp/tenure-dashboard-bench-XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  {
    auto archive = dashboard::TermArchive::Open(std::string(dir) + "/terms.jsonl");
    if (!archive.ok()) {
      std::fprintf(stderr, "%s\n", archive.status().ToString().c_str());
      return 1;
    }
    const size_t opened = mallinfo2().uordblks;
    for (const auto& e : events) {
      dashboard::Term term;
      term.holder = e["spec"]["holderIdentity"].get<std::string>();
      term.start = base;
      term.last_renewal = base + std::chrono::seconds(2 * kRounds);
      term.renewals = kRounds;
      term.lease_duration_seconds = 15;
      (*archive)->Put({e["metadata"]["namespace"], e["metadata"]["name"]}, {term});
    }
    if (Status s = (*archive)->Flush(base); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    std::printf(
        "history bytes per Lease    %.0f (written, %ju bytes of file per Lease)\n",
        static_cast<double>(mallinfo2().uordblks - opened) / static_cast<double>(leases),
        static_cast<uintmax_t>(std::filesystem::file_size(std::string(dir) + "/terms.jsonl") /
                               static_cast<uintmax_t>(leases)));
  }
  std::filesystem::remove_all(dir);
  return 0;
}
