// Patch cost against list length: strategic merge (finalizers as a set, ownerReferences by uid,
// $setElementOrder) and server-side apply (the first apply to an object whose N finalizers no
// one manages yet: they go to "before-first-apply", then the apply merges, owns and records its
// own) on lists of N elements, timed per call. Prints one line per size; the figures are in
// docs/performance.md.
//   build/bench/patch_bench [--max N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "api/kinds.h"
#include "server/field_manager.h"
#include "server/patch.h"
#include "tenure/clock.h"

using nlohmann::json;
using tenure::server::ApplyStrategicMergePatch;
using tenure::server::FieldManager;

namespace {

json Lease() {
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", "l"}, {"namespace", "default"}}},
          {"spec", {{"holderIdentity", "a"}}}};
}

json Strings(int from, int to) {
  json out = json::array();
  for (int i = from; i < to; ++i) out.push_back("f" + std::to_string(i));
  return out;
}

template <typename F>
double Millis(F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  int max = 160000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--max") == 0) max = std::atoi(argv[i + 1]);
  }
  std::printf("%-8s %16s %16s %16s %16s\n", "N", "smp set ms", "smp order ms", "smp by-uid ms",
              "apply set ms");
  auto clock = tenure::Clock::Real();
  FieldManager leases(tenure::api::LeaseKind(), "v1", "", {}, *clock);
  for (int n = 10000; n <= max; n *= 2) {
    json target = Lease();
    target["metadata"]["finalizers"] = Strings(0, n);
    target["metadata"]["uid"] = "u";
    json set_patch = {{"metadata", {{"finalizers", Strings(n / 2, n + n / 2)}}}};
    json order_patch = {{"metadata",
                         {{"$setElementOrder/finalizers", Strings(0, n)},
                          {"$deleteFromPrimitiveList/finalizers", Strings(0, n / 4)}}}};
    json owners = Lease();
    owners["metadata"]["ownerReferences"] = json::array();
    json uid_patch = {{"metadata", {{"ownerReferences", json::array()}}}};
    for (int i = 0; i < n; ++i) {
      owners["metadata"]["ownerReferences"].push_back({{"uid", "u" + std::to_string(i)}});
      uid_patch["metadata"]["ownerReferences"].push_back(
          {{"uid", "u" + std::to_string(n - 1 - i)}, {"controller", true}});
    }
    json applied = Lease();
    applied["metadata"]["finalizers"] = Strings(n / 2, n + n / 2);
    bool ok = true;
    double set_ms = Millis([&] { ok &= ApplyStrategicMergePatch(target, set_patch).ok(); });
    double order_ms = Millis([&] { ok &= ApplyStrategicMergePatch(target, order_patch).ok(); });
    double uid_ms = Millis([&] { ok &= ApplyStrategicMergePatch(owners, uid_patch).ok(); });
    double apply_ms = Millis([&] { ok &= leases.Apply(target, applied, "bench", false).ok(); });
    if (!ok) {
      std::fprintf(stderr, "patch_bench: a patch failed at N=%d\n", n);
      return 1;
    }
    std::printf("%-8d %16.1f %16.1f %16.1f %16.1f\n", n, set_ms, order_ms, uid_ms, apply_ms);
  }
  return 0;
}
