// Tests of the private files: 0700 folders and 0600 files under any umask, looser ones narrowed.
#include "store/private_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/file_mode_test_util.h"

namespace tenure::store {
namespace {

namespace fs = std::filesystem;
using testing::ModeOf;

using PrivateFilesTest = testing::UmaskTest;

TEST_P(PrivateFilesTest, NewFoldersAndFilesAreOwnerOnly) {
  const fs::path folder = root_ / "parent" / "data";
  ASSERT_TRUE(EnsurePrivateFolder(folder).ok());
  EXPECT_EQ(ModeOf(folder), 0700u);
  ASSERT_TRUE(EnsurePrivateFile(folder / "db").ok());
  EXPECT_EQ(ModeOf(folder / "db"), 0600u);
  ASSERT_TRUE(WritePrivateFileAtomically(folder / "token", "secret\n").ok());
  EXPECT_EQ(ModeOf(folder / "token"), 0600u);
  EXPECT_FALSE(fs::exists(folder / "token.tmp"));
  std::ifstream in(folder / "token");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "secret\n");
}

TEST_P(PrivateFilesTest, LooserOnesAreNarrowed) {
  const fs::path folder = root_ / "data";
  fs::create_directory(folder);
  fs::permissions(folder, fs::perms::all);
  std::ofstream(folder / "old").put('x');
  fs::permissions(folder / "old", fs::perms::all);
  std::ofstream(folder / "replaced").put('x');
  fs::permissions(folder / "replaced", fs::perms::all);
  std::ofstream(folder / "replaced.tmp").put('x');  // a crash's leftover, world-writable
  fs::permissions(folder / "replaced.tmp", fs::perms::all);

  ASSERT_TRUE(EnsurePrivateFolder(folder).ok());
  EXPECT_EQ(ModeOf(folder), 0700u);
  ASSERT_TRUE(EnsurePrivateFile(folder / "old", /*create=*/false).ok());
  EXPECT_EQ(ModeOf(folder / "old"), 0600u);
  ASSERT_TRUE(WritePrivateFileAtomically(folder / "replaced", "new").ok());
  EXPECT_EQ(ModeOf(folder / "replaced"), 0600u);
  // Without `create`, a missing file stays missing.
  ASSERT_TRUE(EnsurePrivateFile(folder / "missing", /*create=*/false).ok());
  EXPECT_FALSE(fs::exists(folder / "missing"));
}

TEST_P(PrivateFilesTest, AFileWhereTheFolderShouldBeIsAnError) {
  std::ofstream(root_ / "data").put('x');
  Status s = EnsurePrivateFolder(root_ / "data");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is not a folder"), std::string::npos) << s.ToString();
  EXPECT_FALSE(EnsurePrivateFile(root_ / "no-such-folder" / "db").ok());
}

INSTANTIATE_TEST_SUITE_P(Umasks, PrivateFilesTest, ::testing::Values(000, 022, 077),
                         PrivateFilesTest::Name);

}  // namespace
}  // namespace tenure::store
