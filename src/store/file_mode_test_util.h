// For tests of file modes: a fixture with a temporary folder and the umask of its parameter,
// set for the test's duration (umask is per process: restored at the end), and ModeOf.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

namespace tenure::store::testing {

inline unsigned ModeOf(const std::filesystem::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

class UmaskTest : public ::testing::TestWithParam<mode_t> {
 public:
  // The test name suffix of a parameter: "umask18" for 022 (decimal, as gtest allows).
  static std::string Name(const ::testing::TestParamInfo<mode_t>& info) {
    return "umask" + std::to_string(info.param);
  }

 protected:
  void SetUp() override {
    std::string pattern = "/tmp/tenure-modes-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    old_umask_ = ::umask(GetParam());
  }
  void TearDown() override {
    ::umask(old_umask_);
    std::filesystem::remove_all(root_);
  }
  std::filesystem::path root_;
  mode_t old_umask_ = 022;
};

}  // namespace tenure::store::testing
