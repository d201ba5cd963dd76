// TermArchive: what a restarted dashboard reads back, the newest line winning, the bounds, the
// compaction, and lines it cannot read.
#include "dashboard/term_archive.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace tenure::dashboard {
namespace {

namespace fs = std::filesystem;

const api::Timestamp kT0 = api::Timestamp{} + std::chrono::hours(24 * 365 * 50);

class TermArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tenure-term-archive-XXXXXX";
    dir_ = mkdtemp(pattern);
    path_ = dir_ + "/terms.jsonl";
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::vector<Term> Terms(const std::string& holder, int count, TermEnd last) {
    std::vector<Term> terms;
    for (int i = 0; i < count; ++i) {
      Term t;
      t.holder = holder + std::to_string(i);
      t.start = kT0 + std::chrono::seconds(i * 10);
      t.last_renewal = t.start + std::chrono::seconds(2);
      t.lease_duration_seconds = 15;
      t.end_kind = i + 1 < count ? TermEnd::kReleased : last;
      if (t.end_kind != TermEnd::kCurrent) t.end = t.start + std::chrono::seconds(5);
      terms.push_back(t);
    }
    return terms;
  }
  std::string dir_, path_;
};

TEST_F(TermArchiveTest, AReopenedArchiveHoldsTheNewestTermsOfEachLease) {
  {
    auto archive = TermArchive::Open(path_);
    ASSERT_TRUE(archive.ok()) << archive.status().ToString();
    (*archive)->Put({"ns", "a"}, Terms("a", 1, TermEnd::kCurrent));
    (*archive)->Put({"ns", "b"}, Terms("b", 2, TermEnd::kCurrent));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
    (*archive)->Put({"ns", "a"}, Terms("a", 3, TermEnd::kExpired));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
  }
  struct stat st {};
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto archive = TermArchive::Open(path_);
  ASSERT_TRUE(archive.ok());
  const auto loaded = (*archive)->TakeLoaded();
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded.at({"ns", "a"}), Terms("a", 3, TermEnd::kExpired));
  EXPECT_EQ(loaded.at({"ns", "b"}), Terms("b", 2, TermEnd::kCurrent));
}

TEST_F(TermArchiveTest, TheFileIsRewrittenWhenItHoldsTwiceWhatIsLive) {
  auto archive = TermArchive::Open(path_);
  ASSERT_TRUE(archive.ok());
  uintmax_t largest = 0;
  for (int i = 0; i < 200; ++i) {
    (*archive)->Put({"ns", "busy"}, Terms("h", 1 + i % 5, TermEnd::kCurrent));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
    largest = std::max(largest, fs::file_size(path_));
  }
  const uintmax_t one_line = fs::file_size(path_);
  EXPECT_LT(largest, 3 * 2000 + 4096) << "the file kept growing";
  EXPECT_LT(one_line, 2 * 2000 + 4096);
  archive->reset();
  auto again = TermArchive::Open(path_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->TakeLoaded().size(), 1u);
}

// The lines live in the file, not in memory: a Lease's terms are read back from wherever its
// newest line is (still to be written, appended, or moved by a rewrite).
TEST_F(TermArchiveTest, TermsAreReadBackBeforeAndAfterTheyAreWrittenAndRewritten) {
  auto archive = TermArchive::Open(path_);
  ASSERT_TRUE(archive.ok());
  std::map<LeaseKey, std::vector<Term>> expected;
  for (int round = 0; round < 60; ++round) {
    for (int lease = 0; lease < 4; ++lease) {
      if ((round + lease) % 3 == 0) continue;
      const LeaseKey key{"ns", "l" + std::to_string(lease)};
      expected[key] = Terms("h" + std::to_string(round), 1 + (round + lease) % 4,
                            round % 2 ? TermEnd::kCurrent : TermEnd::kExpired);
      (*archive)->Put(key, expected[key]);
      EXPECT_EQ((*archive)->TermsOf(key), expected[key]) << "before Flush, round " << round;
    }
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
    for (const auto& [key, terms] : expected) {
      EXPECT_EQ((*archive)->TermsOf(key), terms) << key.second << ", round " << round;
    }
  }
  EXPECT_LT(fs::file_size(path_), 3 * 4 * 2000 + 4096) << "never rewritten";
  archive->reset();
  auto reread = TermArchive::Open(path_);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ((*reread)->TakeLoaded(), expected);
  for (const auto& [key, terms] : expected) EXPECT_EQ((*reread)->TermsOf(key), terms);
}

// Found by review: the archive reads its lines back from the file, so a file someone else
// deleted, truncated or overwrote must neither hand back another Lease's bytes nor stop the
// history from being written.
TEST_F(TermArchiveTest, AFileChangedUnderTheArchiveIsRewrittenFromWhatIsLeft) {
  const LeaseKey a{"ns", "a"}, b{"ns", "b"}, c{"ns", "c"};
  const auto fill = [&](TermArchive& archive) {
    archive.Put(a, Terms("a", 2, TermEnd::kCurrent));
    archive.Put(b, Terms("b", 3, TermEnd::kCurrent));
    ASSERT_TRUE(archive.Flush(kT0).ok());
  };
  {  // Deleted: the Leases only in it are gone, the next ones are written.
    auto archive = TermArchive::Open(path_);
    ASSERT_TRUE(archive.ok());
    fill(**archive);
    fs::remove(path_);
    (*archive)->Put(c, Terms("c", 1, TermEnd::kCurrent));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
    EXPECT_FALSE((*archive)->TermsOf(a));
    EXPECT_EQ((*archive)->TermsOf(c), Terms("c", 1, TermEnd::kCurrent));
    EXPECT_EQ((*archive)->lost_records(), 2u);
  }
  {
    auto reread = TermArchive::Open(path_);
    ASSERT_TRUE(reread.ok());
    const auto loaded = (*reread)->TakeLoaded();
    ASSERT_EQ(loaded.size(), 1u);
    EXPECT_EQ(loaded.at(c), Terms("c", 1, TermEnd::kCurrent));
  }
  fs::remove(path_);
  {  // Overwritten in place, same size: no line of another Lease is taken for a's.
    auto archive = TermArchive::Open(path_);
    ASSERT_TRUE(archive.ok());
    fill(**archive);
    std::string text;
    {
      std::ifstream in(path_);
      text.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t first_line = text.find('\n') + 1;
    {  // b's line where a's was, and a's where b's was (the same bytes, elsewhere)
      std::ofstream out(path_, std::ios::in | std::ios::out);
      std::string swapped = text.substr(first_line) + text.substr(0, first_line);
      out << swapped;
    }
    ASSERT_EQ(fs::file_size(path_), text.size());
    EXPECT_FALSE((*archive)->TermsOf(a));
    EXPECT_FALSE((*archive)->TermsOf(b));
    (*archive)->Put(c, Terms("c", 1, TermEnd::kCurrent));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
    EXPECT_EQ((*archive)->TermsOf(c), Terms("c", 1, TermEnd::kCurrent));
  }
  fs::remove(path_);
  {  // Truncated: rewritten from what is left at the next Flush.
    auto archive = TermArchive::Open(path_);
    ASSERT_TRUE(archive.ok());
    fill(**archive);
    fs::resize_file(path_, 10);
    (*archive)->Put(c, Terms("c", 1, TermEnd::kCurrent));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
    EXPECT_EQ((*archive)->lost_records(), 2u);
    EXPECT_EQ((*archive)->TermsOf(c), Terms("c", 1, TermEnd::kCurrent));
    archive->reset();
    auto reread = TermArchive::Open(path_);
    ASSERT_TRUE(reread.ok());
    EXPECT_EQ((*reread)->TakeLoaded().size(), 1u);
  }
}

// A file whose last line has no newline (edited by hand) is read whole, and kept.
TEST_F(TermArchiveTest, ALastLineWithoutItsNewlineIsKept) {
  {
    auto archive = TermArchive::Open(path_);
    ASSERT_TRUE(archive.ok());
    (*archive)->Put({"ns", "a"}, Terms("a", 2, TermEnd::kCurrent));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
  }
  fs::resize_file(path_, fs::file_size(path_) - 1);
  auto archive = TermArchive::Open(path_);
  ASSERT_TRUE(archive.ok());
  EXPECT_EQ((*archive)->TakeLoaded().size(), 1u);
  EXPECT_EQ((*archive)->TermsOf({"ns", "a"}), Terms("a", 2, TermEnd::kCurrent));
  EXPECT_EQ((*archive)->lost_records(), 0u);
}

// A rewrite of more than one chunk (64 KiB) of lines.
TEST_F(TermArchiveTest, ARewriteOfManyLeasesKeepsEachOnesTerms) {
  auto archive = TermArchive::Open(path_);
  ASSERT_TRUE(archive.ok());
  std::map<LeaseKey, std::vector<Term>> expected;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 600; ++i) {
      const LeaseKey key{"ns-" + std::to_string(i % 7), "lease-" + std::to_string(i)};
      expected[key] =
          Terms("holder-" + std::to_string(round), 1 + (i + round) % 3, TermEnd::kCurrent);
      (*archive)->Put(key, expected[key]);
    }
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
  }
  EXPECT_GT(fs::file_size(path_), 2u * 64 * 1024);
  for (const auto& [key, terms] : expected) EXPECT_EQ((*archive)->TermsOf(key), terms);
  archive->reset();
  auto reread = TermArchive::Open(path_);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ((*reread)->TakeLoaded(), expected);
}

TEST_F(TermArchiveTest, BoundsForgetTheOldestLeasesAndLongDeletedOnes) {
  TermArchiveOptions options;
  options.max_leases = 3;
  options.forget_deleted_after = std::chrono::hours(1);
  auto archive = TermArchive::Open(path_, options);
  ASSERT_TRUE(archive.ok());
  for (int i = 0; i < 5; ++i) {
    auto terms = Terms("h", 1, TermEnd::kReleased);
    terms[0].end = kT0 + std::chrono::minutes(i);
    (*archive)->Put({"ns", "l" + std::to_string(i)}, terms);
  }
  // Released first, then deleted: the deletion is what counts.
  auto deleted = Terms("d", 1, TermEnd::kReleased);
  (*archive)->Put({"ns", "gone"}, deleted, kT0 + std::chrono::minutes(10));
  ASSERT_TRUE((*archive)->Flush(kT0 + std::chrono::minutes(20)).ok());
  archive->reset();
  auto reread = TermArchive::Open(path_, options);
  ASSERT_TRUE(reread.ok());
  std::vector<std::string> names;
  for (const auto& [key, terms] : (*reread)->TakeLoaded()) names.push_back(key.second);
  EXPECT_EQ(names, (std::vector<std::string>{"gone", "l3", "l4"}));
  EXPECT_TRUE((*reread)->TermsOf({"ns", "gone"}));
  ASSERT_TRUE((*reread)->Flush(kT0 + std::chrono::hours(2)).ok());
  EXPECT_FALSE((*reread)->TermsOf({"ns", "gone"}));
  reread->reset();
  auto later = TermArchive::Open(path_, options);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ((*later)->TakeLoaded().count({"ns", "gone"}), 0u);
}

TEST_F(TermArchiveTest, LinesThatDoNotParseAreSkippedAndCounted) {
  {
    auto archive = TermArchive::Open(path_);
    ASSERT_TRUE(archive.ok());
    (*archive)->Put({"ns", "a"}, Terms("a", 1, TermEnd::kCurrent));
    ASSERT_TRUE((*archive)->Flush(kT0).ok());
  }
  {
    std::ofstream out(path_, std::ios::app);
    out << "{not json\n"
        << R"({"namespace":"ns","name":"b","terms":[{"holder":"x"}]})"
        << "\n"
        << R"({"namespace":"ns","terms":[]})"
        << "\n";
  }
  auto archive = TermArchive::Open(path_);
  ASSERT_TRUE(archive.ok());
  EXPECT_EQ((*archive)->skipped_lines(), 3u);
  EXPECT_EQ((*archive)->TakeLoaded().size(), 1u);
}

TEST_F(TermArchiveTest, OneArchivePerFile) {
  auto first = TermArchive::Open(path_);
  ASSERT_TRUE(first.ok());
  auto second = TermArchive::Open(path_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().reason(), Reason::kConflict);
  EXPECT_NE(second.status().message().find("another dashboard"), std::string::npos);
  first->reset();
  EXPECT_TRUE(TermArchive::Open(path_).ok());
}

TEST_F(TermArchiveTest, AFolderThatCannotBeWrittenIsAnError) {
  auto archive = TermArchive::Open(dir_ + "/missing/terms.jsonl");
  ASSERT_FALSE(archive.ok());
  EXPECT_NE(archive.status().message().find("missing/terms.jsonl"), std::string::npos)
      << archive.status().ToString();
}

}  // namespace
}  // namespace tenure::dashboard
