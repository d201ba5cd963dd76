// Tests of the audit log file: owner-only whatever the umask, rotation by size, pruning by count.
#include "server/audit_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "store/file_mode_test_util.h"

namespace tenure::server {
namespace {

namespace fs = std::filesystem;

class AuditLogTest : public store::testing::UmaskTest {
 protected:
  void SetUp() override {
    store::testing::UmaskTest::SetUp();
    dir_ = root_;
  }
  std::vector<fs::path> Files() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

TEST_P(AuditLogTest, RotatesBySizeKeepsTheNewestBackupsAndIsOwnerOnly) {
  const fs::path path = dir_ / "audit.log";
  auto log = AuditLogFile::Open({.path = path.string(), .max_size_mb = 1, .max_backups = 2});
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  const std::string line(100 * 1024 - 1, 'x');       // 100 KiB with its newline
  for (int i = 0; i < 35; ++i) (*log)->Write(line);  // 3.5 MiB: three rotations
  EXPECT_EQ((*log)->write_errors(), 0u);
  std::vector<fs::path> files = Files();
  ASSERT_EQ(files.size(), 3u);  // the current file and two backups
  EXPECT_EQ(files.back(), path);
  for (const fs::path& f : files) {
    EXPECT_EQ(store::testing::ModeOf(f), 0600u) << f;
    EXPECT_LE(fs::file_size(f), 1024u * 1024u) << f;
    EXPECT_EQ(fs::file_size(f) % (100 * 1024), 0u) << f;  // whole lines only
  }
  EXPECT_EQ(files[0].filename().string().rfind("audit-", 0), 0u);
  EXPECT_EQ(files[0].extension(), ".log");
}

// Each write here rotates: several rotations fall in one millisecond, and none may overwrite
// another's backup.
TEST_P(AuditLogTest, RotationsInOneMillisecondKeepEveryBackup) {
  const fs::path path = dir_ / "audit.log";
  auto log = AuditLogFile::Open({.path = path.string(), .max_size_mb = 1, .max_backups = 0});
  ASSERT_TRUE(log.ok());
  const std::string line(1024 * 1024 - 1, 'z');  // a whole megabyte with its newline
  for (int i = 0; i < 6; ++i) (*log)->Write(line);
  EXPECT_EQ(Files().size(), 6u);  // five backups and the current file
  uint64_t total = 0;
  for (const fs::path& f : Files()) total += fs::file_size(f);
  EXPECT_EQ(total, 6u * 1024 * 1024);
}

TEST_P(AuditLogTest, OnlyItsOwnBackupsArePruned) {
  const fs::path path = dir_ / "audit.log";
  for (const char* other : {"audit-notes.log", "audit-2026.log", "auditx.log"}) {
    std::ofstream(dir_ / other) << "keep";
  }
  auto log = AuditLogFile::Open({.path = path.string(), .max_size_mb = 1, .max_backups = 1});
  ASSERT_TRUE(log.ok());
  const std::string line(1024 * 1024 - 1, 'q');
  for (int i = 0; i < 4; ++i) (*log)->Write(line);
  EXPECT_EQ(AuditLogBackups(path.string()).size(), 1u);
  for (const char* other : {"audit-notes.log", "audit-2026.log", "auditx.log"}) {
    EXPECT_TRUE(fs::exists(dir_ / other)) << other;
  }
}

TEST_P(AuditLogTest, NoRotationWhenTheSizeIsZero) {
  const fs::path path = dir_ / "audit.log";
  auto log = AuditLogFile::Open({.path = path.string(), .max_size_mb = 0});
  ASSERT_TRUE(log.ok());
  const std::string line(512 * 1024 - 1, 'y');
  for (int i = 0; i < 3; ++i) (*log)->Write(line);
  EXPECT_EQ(Files().size(), 1u);
  EXPECT_EQ(fs::file_size(path), 3u * 512 * 1024);
}

TEST_P(AuditLogTest, AFolderThatDoesNotExistIsAnError) {
  auto log = AuditLogFile::Open({.path = (dir_ / "missing" / "audit.log").string()});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("cannot open the audit log"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Umasks, AuditLogTest, ::testing::Values(0000, 0022),
                         store::testing::UmaskTest::Name);

}  // namespace
}  // namespace tenure::server
