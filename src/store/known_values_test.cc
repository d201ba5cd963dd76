// Tests of KnownValues: exact-revision lookups, newest wins, deletions, capacity, concurrency.
#include "store/known_values.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace tenure::store {
namespace {

KeyValue Version(const std::string& key, const std::string& value, int64_t revision) {
  return KeyValue{key, value, 1, revision};
}

TEST(KnownValuesTest, AnswersOnlyForTheExactRevisionHeld) {
  KnownValues known;
  EXPECT_FALSE(known.Lookup("/registry/leases/default/a", 5));
  known.Note(Version("/registry/leases/default/a", "v5", 5));
  auto hit = known.Lookup("/registry/leases/default/a", 5);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->value, "v5");
  EXPECT_EQ(hit->create_revision, 1);
  EXPECT_FALSE(known.Lookup("/registry/leases/default/a", 4));
  EXPECT_FALSE(known.Lookup("/registry/leases/default/a", 6));
  EXPECT_FALSE(known.Lookup("/registry/leases/default/b", 5));
}

TEST(KnownValuesTest, KeepsTheNewestVersionWhateverTheOrderOfArrival) {
  KnownValues known;
  known.Note(Version("k", "v7", 7));
  known.Note(Version("k", "v6", 6));  // a watch event older than a write result already noted
  EXPECT_FALSE(known.Lookup("k", 6));
  EXPECT_EQ(known.Lookup("k", 7)->value, "v7");
  known.Note(Version("k", "v9", 9));
  EXPECT_FALSE(known.Lookup("k", 7));
  EXPECT_EQ(known.Lookup("k", 9)->value, "v9");
  EXPECT_EQ(known.size(), 1u);
}

TEST(KnownValuesTest, ADeletionDropsOnlyOlderVersions) {
  KnownValues known;
  known.Note(Version("k", "v3", 3));
  known.Forget("k", 4);
  EXPECT_FALSE(known.Lookup("k", 3));
  EXPECT_EQ(known.size(), 0u);
  known.Note(Version("k", "again", 8));  // re-created after the deletion
  known.Forget("k", 4);                  // a late report of the old deletion
  EXPECT_EQ(known.Lookup("k", 8)->value, "again");
}

TEST(KnownValuesTest, HoldsAtMostItsCapacity) {
  KnownValues known(3);
  for (int i = 0; i < 10; ++i) known.Note(Version("k" + std::to_string(i), "v", i + 1));
  EXPECT_EQ(known.size(), 3u);
  EXPECT_TRUE(known.Lookup("k9", 10));  // the newest note is always held
  known.Note(Version("k9", "w", 11));   // a held key's newer version replaces it in place
  EXPECT_EQ(known.size(), 3u);
  EXPECT_EQ(known.Lookup("k9", 11)->value, "w");
  KnownValues none(0);
  none.Note(Version("k", "v", 1));
  EXPECT_EQ(none.size(), 0u);
}

TEST(KnownValuesTest, ConcurrentNotesEndWithTheNewest) {
  KnownValues known;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t r = t; r < 4000; r += 4) known.Note(Version("k", std::to_string(r), r));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(known.Lookup("k", 3999)->value, "3999");
}

// With a watch-fed copy, the map holds only what the copy does not: a write until the watch
// brings it, and a deletion as a marker that says the copy's older version is gone.
TEST(KnownValuesTest, WhatAWatchFedCopyHoldsIsDroppedAndDeletionsAreMarked) {
  KnownValues known;
  known.Note(Version("k", "written", 7));
  EXPECT_EQ(known.Held("k"), 7);
  known.Settled("k", 6);  // an older event: the write is still newer than the copy
  EXPECT_EQ(known.Lookup("k", 7)->value, "written");
  known.Settled("k", 7);
  EXPECT_FALSE(known.Lookup("k", 7));
  EXPECT_FALSE(known.Held("k"));
  EXPECT_EQ(known.size(), 0u);

  known.NoteDeleted("k", 9);
  EXPECT_EQ(known.Held("k"), 9);
  EXPECT_FALSE(known.Lookup("k", 9));    // a marker names no value
  known.Note(Version("k", "older", 8));  // older than the deletion: ignored
  EXPECT_FALSE(known.Lookup("k", 8));
  known.Settled("k", 9);
  EXPECT_FALSE(known.Held("k"));
}

}  // namespace
}  // namespace tenure::store
