// Small helpers the benchmarks share: process memory and percentiles.
#pragma once

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

namespace tenure::bench {

// A /proc/self/status field in KiB ("VmRSS:", "VmHWM:"), -1 when absent.
inline long ProcStatusKiB(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
  }
  return -1;
}
inline long RssKiB() { return ProcStatusKiB("VmRSS:"); }
inline long PeakRssKiB() { return ProcStatusKiB("VmHWM:"); }

// The p-quantile (0..1) of `v`, nearest rank below.
inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace tenure::bench
