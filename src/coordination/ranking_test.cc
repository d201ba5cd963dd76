// Tests of PickStrategy and the OldestEmulationVersion ranking of LeaseCandidates.
#include "coordination/ranking.h"

#include <gtest/gtest.h>

namespace tenure::coordination {
namespace {

api::LeaseCandidate Candidate(std::string name, std::string binary, std::string emulation,
                              std::string strategy = "OldestEmulationVersion",
                              int created_second = 0) {
  api::LeaseCandidate c;
  c.metadata.name = std::move(name);
  c.metadata.creation_timestamp = api::Timestamp{} + std::chrono::seconds(1000 + created_second);
  c.spec.lease_name = "lease";
  c.spec.binary_version = std::move(binary);
  c.spec.emulation_version = std::move(emulation);
  c.spec.strategy = std::move(strategy);
  return c;
}

std::vector<const api::LeaseCandidate*> Ptrs(const std::vector<api::LeaseCandidate>& v) {
  std::vector<const api::LeaseCandidate*> out;
  for (const auto& c : v) out.push_back(&c);
  return out;
}

TEST(PickStrategyTest, TheHighestBinaryVersionDecides) {
  std::vector<api::LeaseCandidate> v = {Candidate("a", "1.33.0", "1.33.0", "example.com/old"),
                                        Candidate("b", "1.34.0", "1.33.0")};
  StrategyChoice choice = PickStrategy(Ptrs(v));
  EXPECT_EQ(choice.strategy, "OldestEmulationVersion");
  EXPECT_EQ(choice.conflict, "");
}

TEST(PickStrategyTest, DisagreementAtTheHighestVersionIsAConflict) {
  std::vector<api::LeaseCandidate> v = {Candidate("b", "1.34.0", "1.34.0", "example.com/x"),
                                        Candidate("a", "1.34.0", "1.33.0"),
                                        Candidate("c", "1.33.0", "1.33.0")};
  StrategyChoice choice = PickStrategy(Ptrs(v));
  EXPECT_EQ(choice.strategy, "");
  EXPECT_EQ(choice.conflict,
            "candidates of binary version 1.34.0 disagree: a (OldestEmulationVersion) vs b "
            "(example.com/x)");
}

TEST(PickStrategyTest, DisagreementBelowTheHighestVersionDoesNotMatter) {
  std::vector<api::LeaseCandidate> v = {Candidate("a", "1.33.0", "1.33.0", "example.com/x"),
                                        Candidate("b", "1.33.0", "1.33.0"),
                                        Candidate("c", "1.34.0", "1.33.0")};
  StrategyChoice choice = PickStrategy(Ptrs(v));
  EXPECT_EQ(choice.conflict, "");
  EXPECT_EQ(choice.strategy, "OldestEmulationVersion");
}

TEST(PickStrategyTest, AnUnparsableBinaryVersionCountsAsZero) {
  std::vector<api::LeaseCandidate> v = {Candidate("a", "v1.40", "1.33.0", "example.com/x"),
                                        Candidate("b", "1.30.0", "1.30.0")};
  EXPECT_EQ(PickStrategy(Ptrs(v)).strategy, "OldestEmulationVersion");
}

TEST(OldestEmulationVersionTest, LowestEmulationThenBinaryThenOldestThenName) {
  std::vector<api::LeaseCandidate> v = {
      Candidate("a", "1.34.0", "1.34.0"), Candidate("b", "1.34.0", "1.33.0"),
      Candidate("c", "1.33.0", "1.33.0", "OldestEmulationVersion", 5)};
  EXPECT_EQ(PickOldestEmulationVersion(Ptrs(v))->metadata.name, "c");  // emulation tie: binary
  v.push_back(Candidate("d", "1.33.0", "1.33.0", "OldestEmulationVersion", 1));
  EXPECT_EQ(PickOldestEmulationVersion(Ptrs(v))->metadata.name, "d");  // then the older
  v.push_back(Candidate("e", "1.35.0", "1.32.0", "OldestEmulationVersion", 9));
  EXPECT_EQ(PickOldestEmulationVersion(Ptrs(v))->metadata.name, "e");  // emulation first
  v.push_back(Candidate("0", "1.35.0", "1.32.0", "OldestEmulationVersion", 9));
  EXPECT_EQ(PickOldestEmulationVersion(Ptrs(v))->metadata.name, "0");  // all equal: name
  // Semantic, not textual, order.
  std::vector<api::LeaseCandidate> w = {Candidate("x", "1.10.0", "1.10.0"),
                                        Candidate("y", "1.9.0", "1.9.0")};
  EXPECT_EQ(PickOldestEmulationVersion(Ptrs(w))->metadata.name, "y");
}

TEST(OldestEmulationVersionTest, UnparsableVersionsAreSkipped) {
  std::vector<api::LeaseCandidate> v = {Candidate("bad-emulation", "1.30.0", "1.30"),
                                        Candidate("bad-binary", "v1.30.0", "1.30.0"),
                                        Candidate("good", "1.34.0", "1.34.0")};
  EXPECT_EQ(PickOldestEmulationVersion(Ptrs(v))->metadata.name, "good");
  v.pop_back();
  EXPECT_EQ(PickOldestEmulationVersion(Ptrs(v)), nullptr);
}

}  // namespace
}  // namespace tenure::coordination
