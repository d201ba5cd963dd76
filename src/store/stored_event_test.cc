// Tests of StoredText and ValueCompactor: what a store keeps of each value, and that it gives the
// value back.
#include "store/stored_event.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "store/election_lease_test_util.h"

namespace tenure::store {
namespace {

// Finding (issue 17): at 20,000 elections the server kept each Lease whole, about 900 bytes of
// its 2 KiB per Lease. A Lease is now kept against another Lease of its namespace.
TEST(ValueCompactorTest, ALeaseIsKeptAsAFractionOfItsBytesAndGivenBackWhole) {
  ValueCompactor compactor;
  std::mt19937 rng(5);
  size_t value_bytes = 0;
  size_t kept_bytes = 0;
  for (int n = 0; n < 2000; ++n) {
    const std::string lease = ElectionLease(n, rng);
    const std::string key = "/registry/leases/default/scale-" + std::to_string(n);
    StoredText stored = compactor.Compact(key, lease);
    EXPECT_TRUE(stored.compact()) << n;
    EXPECT_EQ(stored.size(), lease.size());
    ASSERT_EQ(stored.Text(), lease) << n;
    value_bytes += lease.size();
    kept_bytes += stored.kept_bytes();
  }
  EXPECT_LT(kept_bytes, value_bytes / 4);
  EXPECT_EQ(compactor.directories(), 1u);
  std::printf("2,000 Leases of %zu bytes on average, kept in %zu\n", value_bytes / 2000,
              kept_bytes / 2000);
}

TEST(ValueCompactorTest, ShortAndLongValuesAreKeptWhole) {
  ValueCompactor compactor;
  EXPECT_FALSE(compactor.Compact("/registry/a/x", "short").compact());
  EXPECT_EQ(compactor.Compact("/registry/a/x", "short").Text(), "short");
  const std::string long_value(ValueCompactor::kMaxSize + 1, 'v');
  StoredText whole = compactor.Compact("/registry/a/x", long_value);
  EXPECT_FALSE(whole.compact());
  EXPECT_EQ(whole.Text(), long_value);
  EXPECT_EQ(compactor.directories(), 0u);
}

// Found by review: directories were never given up, so 256 namespaces that once held a value
// kept their bases for good and no later namespace's values were compacted.
TEST(ValueCompactorTest, DirectoriesWhoseBaseNoValueUsesAreGivenUpForNewOnes) {
  ValueCompactor compactor;
  std::mt19937 rng(9);
  const std::string lease = ElectionLease(1, rng);
  auto key_in = [](size_t n) { return "/registry/leases/ns" + std::to_string(n) + "/a"; };
  std::vector<StoredText> kept;
  for (size_t i = 0; i < ValueCompactor::kMaxDirectories; ++i) {
    kept.push_back(compactor.Compact(key_in(i), lease));
    EXPECT_TRUE(kept.back().compact());
  }
  // Every directory's base in use: one more directory's values are kept whole.
  StoredText beyond = compactor.Compact(key_in(1000), lease);
  EXPECT_FALSE(beyond.compact());
  EXPECT_EQ(beyond.Text(), lease);
  EXPECT_EQ(compactor.directories(), ValueCompactor::kMaxDirectories);
  // Once the values of half of them are gone, their directories make room.
  kept.resize(ValueCompactor::kMaxDirectories / 2);
  StoredText now = compactor.Compact(key_in(1000), lease);
  EXPECT_TRUE(now.compact());
  EXPECT_EQ(now.Text(), lease);
  EXPECT_EQ(compactor.directories(), ValueCompactor::kMaxDirectories / 2 + 1);
  for (const StoredText& text : kept) EXPECT_EQ(text.Text(), lease);
}

TEST(ValueCompactorTest, ADirectoryWhoseValuesChangeGetsANewBase) {
  ValueCompactor compactor;
  const std::string key = "/registry/configmaps/default/x";
  std::mt19937 rng(3);
  auto random_text = [&](size_t size) {
    std::string text(size, ' ');
    for (char& c : text) c = static_cast<char>('a' + rng() % 26);
    return text;
  };
  EXPECT_TRUE(compactor.Compact(key, random_text(500)).compact());  // the first: the base
  // Unlike the base: kept whole until the base is replaced by one of them.
  const std::string changed = random_text(500);
  for (uint32_t i = 1; i < ValueCompactor::kMissesBeforeANewBase; ++i) {
    StoredText unlike = compactor.Compact(key, random_text(500));
    EXPECT_FALSE(unlike.compact()) << i;
  }
  StoredText base = compactor.Compact(key, changed);
  EXPECT_TRUE(base.compact());
  EXPECT_EQ(base.Text(), changed);
  std::string edited = changed;
  edited[250] = '!';
  StoredText next = compactor.Compact(key, edited);
  EXPECT_TRUE(next.compact());
  EXPECT_LT(next.kept_bytes(), 20u);
  EXPECT_EQ(next.Text(), edited);
}

TEST(ValueCompactorTest, AnEventGivesBackItsKeyValue) {
  ValueCompactor compactor;
  std::mt19937 rng(1);
  const KeyValue kv{"/registry/leases/default/a", ElectionLease(4, rng), 7, 9};
  SharedEvent event = compactor.MakeEvent(Event::Type::kUpdated, kv);
  KeyValue back = event->ToKeyValue();
  EXPECT_EQ(back.key, kv.key);
  EXPECT_EQ(back.value, kv.value);
  EXPECT_EQ(back.create_revision, 7);
  EXPECT_EQ(back.mod_revision, 9);
  EXPECT_EQ(event->type, Event::Type::kUpdated);
  EXPECT_FALSE(WholeEvent(Event::Type::kCreated, kv)->value.compact());
}

}  // namespace
}  // namespace tenure::store
