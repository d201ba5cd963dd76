// Tests of CandidateIndex: candidates added, moved to another lease, removed, across namespaces.
#include "coordination/candidate_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tenure::coordination {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

api::LeaseCandidate Candidate(std::string ns, std::string name, std::string lease) {
  api::LeaseCandidate c;
  c.metadata.namespace_ = std::move(ns);
  c.metadata.name = std::move(name);
  c.spec.lease_name = std::move(lease);
  return c;
}

TEST(CandidateIndexTest, FollowsCandidatesAcrossLeasesAndNamespaces) {
  CandidateIndex index;
  EXPECT_FALSE(index.HasCandidates("a", "l"));
  index.Put(Candidate("a", "c2", "l"));
  index.Put(Candidate("a", "c1", "l"));
  index.Put(Candidate("b", "c1", "l"));
  EXPECT_EQ(index.Put(Candidate("a", "c1", "l")), std::nullopt);  // changed, same lease
  EXPECT_THAT(index.CandidatesOf("a", "l"), ElementsAre("c1", "c2"));
  EXPECT_THAT(index.CandidatesOf("b", "l"), ElementsAre("c1"));

  EXPECT_EQ(index.Put(Candidate("a", "c2", "m")), "l");  // now runs for another lease
  EXPECT_THAT(index.CandidatesOf("a", "l"), ElementsAre("c1"));
  EXPECT_THAT(index.CandidatesOf("a", "m"), ElementsAre("c2"));

  EXPECT_EQ(index.Remove("a", "c1"), "l");
  EXPECT_EQ(index.Remove("a", "unknown"), std::nullopt);
  EXPECT_FALSE(index.HasCandidates("a", "l"));
  EXPECT_THAT(index.CandidatesOf("a", "l"), IsEmpty());
  EXPECT_TRUE(index.HasCandidates("b", "l"));

  index.Clear();
  EXPECT_FALSE(index.HasCandidates("b", "l"));
  EXPECT_FALSE(index.HasCandidates("a", "m"));
}

}  // namespace
}  // namespace tenure::coordination
