// Tests of MakeDelta and ApplyDelta: round trips of edited values, and the size of a renewal's.
#include "store/value_delta.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "store/election_lease_test_util.h"

namespace tenure::store {
namespace {

// A Lease as a renewal leaves it: `renew` and `managed` are the timestamps that move.
std::string Lease(const std::string& holder, const std::string& renew, const std::string& managed) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"creationTimestamp":"2026-12-05T03:17:11Z","labels":{"tenure.dev/group":"3"},"managedFields":[{"apiVersion":"coordination.k8s.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:acquireTime":{},"f:holderIdentity":{},"f:leaseDurationSeconds":{},"f:leaseTransitions":{},"f:renewTime":{}}},"manager":"tenure","operation":"Update","time":")" +
         managed +
         R"("}],"name":"scale-00001","namespace":"default","uid":"6f1c1b9e-2d53-4a8e-9a57-3c1f0b8d2e41"},"spec":{"acquireTime":"2026-12-05T03:17:11.000000Z","holderIdentity":")" +
         holder + R"(","leaseDurationSeconds":15,"leaseTransitions":0,"renewTime":")" + renew +
         R"("}})";
}

void ExpectRoundTrip(const std::string& target, const std::string& base) {
  std::string delta = MakeDelta(target, base);
  auto back = ApplyDelta(delta, base);
  ASSERT_TRUE(back.has_value()) << "target " << target << " base " << base;
  EXPECT_EQ(*back, target) << "base " << base;
  // Against the same base indexed: the copies may come from anywhere in it.
  const DeltaBase indexed(base);
  back = ApplyDelta(MakeDelta(target, indexed), indexed.text());
  ASSERT_TRUE(back.has_value()) << "indexed: target " << target << " base " << base;
  EXPECT_EQ(*back, target) << "indexed: base " << base;
}

TEST(ValueDeltaTest, ARenewalIsAFewBytes) {
  std::string older =
      Lease("candidate-a-0001", "2026-12-05T03:17:13.123456Z", "2026-12-05T03:17:13Z");
  std::string newer =
      Lease("candidate-a-0001", "2026-12-05T03:17:15.130987Z", "2026-12-05T03:17:15Z");
  std::string delta = MakeDelta(older, newer);
  EXPECT_LT(delta.size(), 40u) << older.size() << " bytes of value";
  EXPECT_EQ(ApplyDelta(delta, newer), older);
}

TEST(ValueDeltaTest, AHandoverChangesTheLengthAndStillRoundTrips) {
  std::string older = Lease("a", "2026-12-05T03:17:13.123456Z", "2026-12-05T03:17:13Z");
  std::string newer =
      Lease("candidate-b-0001", "2026-12-05T03:17:28.000001Z", "2026-12-05T03:17:28Z");
  ExpectRoundTrip(older, newer);
  ExpectRoundTrip(newer, older);
  EXPECT_LT(MakeDelta(older, newer).size(), older.size() / 2);
}

TEST(ValueDeltaTest, EdgeCases) {
  ExpectRoundTrip("", "");
  ExpectRoundTrip("", "base");
  ExpectRoundTrip("target", "");
  ExpectRoundTrip("same", "same");
  ExpectRoundTrip("abc", "abcdef");
  ExpectRoundTrip("abcdef", "def");
  ExpectRoundTrip("aXcdefghijklmnopqrstuvwXyz", "abcdefghijklmnopqrstuvwxyz");
  ExpectRoundTrip(std::string(300, 'x'), std::string(300, 'y'));
  EXPECT_TRUE(MakeDelta("same", "same").size() <= 3);
}

TEST(ValueDeltaTest, RandomEditsRoundTrip) {
  std::mt19937 rng(20261205);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n)(rng); };
  for (int round = 0; round < 2000; ++round) {
    std::string base(pick(200), ' ');
    for (char& c : base) c = static_cast<char>('a' + pick(3));  // few letters: many equal runs
    std::string target = base;
    const size_t edits = pick(6);
    for (size_t e = 0; e < edits; ++e) {
      const size_t at = pick(target.size());
      switch (pick(2)) {
        case 0:  // overwrite in place
          if (at < target.size()) target[at] = static_cast<char>('a' + pick(3));
          break;
        case 1:
          target.insert(at, std::string(pick(5), 'z'));
          break;
        default:
          target.erase(at, pick(5));
          break;
      }
    }
    ExpectRoundTrip(target, base);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ValueDeltaTest, ALeaseAgainstAnotherElectionsLeaseIsAFractionOfIt) {
  std::mt19937 rng(17);
  const DeltaBase base(ElectionLease(0, rng));
  for (int n = 1; n < 200; ++n) {
    const std::string lease = ElectionLease(n, rng);
    const std::string delta = MakeDelta(lease, base);
    EXPECT_LT(delta.size(), lease.size() / 4) << lease;
    EXPECT_EQ(ApplyDelta(delta, base.text()), lease);
    if (n == 1) {
      std::printf("a Lease of %zu bytes: %zu bytes against another election's\n", lease.size(),
                  delta.size());
    }
  }
}

TEST(ValueDeltaTest, ADeltaThatDoesNotFitItsBaseIsRefused) {
  std::string base = Lease("a", "2026-12-05T03:17:13.123456Z", "2026-12-05T03:17:13Z");
  std::string delta =
      MakeDelta(Lease("a", "2026-12-05T03:17:15.000000Z", "2026-12-05T03:17:15Z"), base);
  EXPECT_FALSE(ApplyDelta(delta, base.substr(0, base.size() / 2)).has_value());
  EXPECT_FALSE(ApplyDelta(delta.substr(0, delta.size() - 1), base).has_value());
  EXPECT_FALSE(ApplyDelta(std::string(1, '\x80'), base).has_value());
}

TEST(DeltaBytesTest, ARenewalsDeltaNeedsNoHeapBlockAndLongerOnesKeepTheirBytes) {
  static_assert(sizeof(DeltaBytes) == 32);
  std::string older =
      Lease("candidate-a-0001", "2026-12-05T03:17:13.123456Z", "2026-12-05T03:17:13Z");
  std::string newer =
      Lease("candidate-a-0001", "2026-12-05T03:17:15.130987Z", "2026-12-05T03:17:15Z");
  const std::string renewal = MakeDelta(older, newer);
  DeltaBytes kept(renewal);
  EXPECT_FALSE(kept.OnHeap()) << renewal.size() << " bytes";
  EXPECT_EQ(kept.view(), renewal);

  const std::string handover = MakeDelta(
      Lease("candidate-b-0001", "2026-12-05T03:17:30.000001Z", "2026-12-05T03:17:30Z"), newer);
  DeltaBytes long_one(handover);
  EXPECT_EQ(long_one.OnHeap(), handover.size() > 28);
  EXPECT_EQ(long_one.view(), handover);
  DeltaBytes moved(std::move(long_one));
  EXPECT_EQ(moved.view(), handover);
  EXPECT_TRUE(long_one.view().empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  moved = std::move(kept);
  EXPECT_EQ(moved.view(), renewal);
  moved = DeltaBytes(std::string(100, 'x'));
  EXPECT_EQ(moved.view(), std::string(100, 'x'));
  EXPECT_TRUE(DeltaBytes().view().empty());
}

}  // namespace
}  // namespace tenure::store
