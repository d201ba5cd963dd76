// ElectionLease: Leases as a scale run's candidates leave them, for the tests of how the store
// keeps values.
#pragma once

#include <random>
#include <string>

namespace tenure::store {

// The Lease of election `n` of a scale run, as its holder last renewed it: another name, uid,
// group, holder and times than election 0's.
inline std::string ElectionLease(int n, std::mt19937& rng) {
  auto digits = [&](int count) {
    std::string out;
    for (int i = 0; i < count; ++i) out += static_cast<char>('0' + rng() % 10);
    return out;
  };
  auto hex = [&](int count) {
    std::string out;
    for (int i = 0; i < count; ++i) out += "0123456789abcdef"[rng() % 16];
    return out;
  };
  const std::string created = "2026-12-05T0" + digits(1) + ":" + digits(2) + ":" + digits(2);
  const std::string renewed = "2026-12-05T0" + digits(1) + ":" + digits(2) + ":" + digits(2);
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"creationTimestamp":")" +
         created + R"(Z","labels":{"tenure-scale/group":"s)" + std::to_string(n % 7) +
         R"("},"managedFields":[{"apiVersion":"coordination.k8s.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:tenure-scale/group":{}}},"f:spec":{"f:acquireTime":{},"f:holderIdentity":{},"f:leaseDurationSeconds":{},"f:leaseTransitions":{},"f:renewTime":{}}},"manager":"scale_candidates","operation":"Update","time":")" +
         renewed + R"(Z"}],"name":"scale-)" + std::to_string(10000 + n) +
         R"(","namespace":"default","uid":")" + hex(8) + "-" + hex(4) + "-" + hex(4) + "-" +
         hex(4) + "-" + hex(12) + R"("},"spec":{"acquireTime":")" + created + "." + digits(6) +
         R"(Z","holderIdentity":"scale-candidate-)" + std::string(1, "ab"[n % 2]) +
         std::to_string(n % 10) + R"(","leaseDurationSeconds":15,"leaseTransitions":)" +
         std::to_string(n % 3) + R"(,"renewTime":")" + renewed + "." + digits(6) + R"(Z"}})";
}

}  // namespace tenure::store
