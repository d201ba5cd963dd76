// What a lock pays to take in the server's reply to a renewal: a Lease as kube-apiserver and
// tenure serve return it (managedFields included), parsed whole and then stripped of its
// managedFields, against parsed without them (api::ParseWithoutManagedFields); and nlohmann's
// parser and serializer against api::ParseJson and api::DumpJson on the whole object, as the
// server parses a stored object for an update and writes the new one. Figures in
// docs/performance.md.
//   build/bench/reply_parse_bench [--calls 200000]
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_util.h"

#include "api/json_text.h"
#include "api/parse_without_managed_fields.h"

namespace {

const std::string kRenewalReply =
    R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"creationTimestamp":)"
    R"("2026-12-04T16:05:35Z","labels":{"tenure-scale/group":"s1"},"managedFields":[{)"
    R"("apiVersion":"coordination.k8s.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":)"
    R"({"f:labels":{".":{},"f:tenure-scale/group":{}}},"f:spec":{"f:acquireTime":{},)"
    R"("f:holderIdentity":{},"f:leaseDurationSeconds":{},"f:leaseTransitions":{},)"
    R"("f:renewTime":{}}},"manager":"scale_candidates","operation":"Update","time":)"
    R"("2026-12-04T16:05:35Z"}],"name":"scale-00042","namespace":"default","resourceVersion":)"
    R"("123456","uid":"3f0b4a52-6a4e-4b8e-9f6e-0d1c2b3a4f5e"},"spec":{"acquireTime":)"
    R"("2026-12-04T16:05:35.123456Z","holderIdentity":"scale-candidate-a0",)"
    R"("leaseDurationSeconds":15,"leaseTransitions":0,"renewTime":"2026-12-04T16:05:35.123456Z"}})";

void Time(const char* what, int calls, const std::function<nlohmann::json()>& parse) {
  size_t members = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) members += parse()["metadata"].size();
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-44s %6.2f us per reply (%zu metadata members)\n", what, us / calls,
              members / static_cast<size_t>(calls));
}

void TimeDump(const char* what, int calls, const std::function<std::string()>& dump) {
  size_t bytes = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) bytes += dump().size();
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-44s %6.2f us per object (%zu bytes)\n", what, us / calls,
              bytes / static_cast<size_t>(calls));
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = tenure::bench::CallsFlag(argc, argv, 200000, "reply_parse_bench");
  std::printf("a renewal's reply, a Lease of %zu bytes, %d calls each\n", kRenewalReply.size(),
              calls);
  Time("parsed whole, then managedFields erased", calls, [] {
    nlohmann::json object = nlohmann::json::parse(kRenewalReply);
    object["metadata"].erase("managedFields");
    return object;
  });
  Time("parsed without managedFields", calls,
       [] { return tenure::api::ParseWithoutManagedFields(kRenewalReply); });
  Time("parsed whole by nlohmann::json::parse", calls,
       [] { return nlohmann::json::parse(kRenewalReply); });
  Time("parsed whole by api::ParseJson", calls,
       [] { return tenure::api::ParseJson(kRenewalReply); });
  const nlohmann::json tree = nlohmann::json::parse(kRenewalReply);
  TimeDump("written by nlohmann's dump()", calls, [&] { return tree.dump(); });
  TimeDump("written by api::DumpJson", calls, [&] { return tenure::api::DumpJson(tree); });
  return 0;
}
