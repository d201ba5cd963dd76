// Tests of the data folder's credentials: owner-only modes under any umask, reuse across starts.
#include "server/credentials.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "store/file_mode_test_util.h"

namespace tenure::server {
namespace {

namespace fs = std::filesystem;
using store::testing::ModeOf;

class CredentialsTest : public store::testing::UmaskTest {
 protected:
  // Every entry of the data folder with its mode.
  void ExpectOwnerOnly(const fs::path& data) {
    EXPECT_EQ(ModeOf(data), 0700u);
    int files = 0;
    for (const auto& entry : fs::directory_iterator(data)) {
      EXPECT_EQ(ModeOf(entry.path()), 0600u) << entry.path();
      ++files;
    }
    // ca.key, ca.crt, server.key, server.crt, admin.token, kubeconfig, sa.key
    EXPECT_EQ(files, 7);
  }
};

TEST_P(CredentialsTest, TheDataFolderAndEveryFileInItAreOwnerOnly) {
  const fs::path data = root_ / "data";
  auto first = EnsureCredentials(data);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(WriteKubeconfig(*first, "https://127.0.0.1:6443").ok());
  ExpectOwnerOnly(data);

  // An older run's folder and files, world-readable: narrowed, and the same credentials kept.
  fs::permissions(data, fs::perms::all);
  for (const auto& entry : fs::directory_iterator(data)) {
    fs::permissions(entry.path(), fs::perms::all);
  }
  auto again = EnsureCredentials(data);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->token, first->token);
  ASSERT_TRUE(WriteKubeconfig(*again, "https://127.0.0.1:6443").ok());
  ExpectOwnerOnly(data);
}

INSTANTIATE_TEST_SUITE_P(Umasks, CredentialsTest, ::testing::Values(000, 022),
                         CredentialsTest::Name);

}  // namespace
}  // namespace tenure::server
