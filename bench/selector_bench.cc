// Selector cost per stored object: what a filtered watch pays for every event of its collection
// and a filtered list for every object, timed per ObjectFilter::Matches call on a stored Lease as
// a renewal leaves it (managedFields included). Label selectors and metadata.name /
// metadata.namespace fields are read from the metadata alone; a field outside it (a
// LeaseCandidate's spec.leaseName) parses the object whole. Figures in docs/performance.md.
//   build/bench/selector_bench [--calls 200000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_util.h"

#include "api/kinds.h"
#include "server/http_server.h"
#include "server/response_format.h"

namespace {

using tenure::server::HttpRequest;
using tenure::server::ObjectFilter;

const std::string kStoredLease =
    R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"creationTimestamp":)"
    R"("2026-12-04T16:05:35Z","labels":{"app":"web","shard":"s1"},"managedFields":[{)"
    R"("apiVersion":"coordination.k8s.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{)"
    R"("f:acquireTime":{},"f:holderIdentity":{},"f:leaseDurationSeconds":{},)"
    R"("f:leaseTransitions":{},"f:renewTime":{}}},"manager":"tenure","operation":"Update",)"
    R"("time":"2026-12-04T16:05:35Z"}],"name":"web-1","namespace":"default","uid":)"
    R"("3f0b4a52-6a4e-4b8e-9f6e-0d1c2b3a4f5e"},"spec":{"acquireTime":)"
    R"("2026-12-04T16:05:35.123456Z","holderIdentity":"scale-candidate-a0",)"
    R"("leaseDurationSeconds":15,"leaseTransitions":0,"renewTime":"2026-12-04T16:05:35.123456Z"}})";

void Time(const char* what, const tenure::api::KindInfo& kind, const std::string& labels,
          const std::string& fields, int calls) {
  HttpRequest request;
  if (!labels.empty()) request.query.emplace("labelSelector", labels);
  if (!fields.empty()) request.query.emplace("fieldSelector", fields);
  auto filter = ObjectFilter::FromRequest(kind, request);
  if (!filter.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, filter.status().ToString().c_str());
    std::exit(1);
  }
  int selected = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) selected += filter->Matches(kind, kStoredLease);
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-44s %6.2f us per object (%d of %d selected)\n", what, us / calls, selected, calls);
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = tenure::bench::CallsFlag(argc, argv, 200000, "selector_bench");
  if (calls < 1) {
    std::fprintf(stderr, "--calls must be at least 1\n");
    return 2;
  }
  std::printf("selector cost on a stored Lease of %zu bytes, %d calls each\n", kStoredLease.size(),
              calls);
  const auto& lease = tenure::api::LeaseKind();
  Time("labelSelector shard=s1 (metadata)", lease, "shard=s1", "", calls);
  Time("labelSelector shard in (s2,s3) (metadata)", lease, "shard in (s2,s3)", "", calls);
  Time("fieldSelector metadata.name=web-1", lease, "", "metadata.name=web-1", calls);
  Time("fieldSelector spec.leaseName=web (whole)", tenure::api::LeaseCandidateKind(), "",
       "spec.leaseName=web", calls);
  return 0;
}
