// ChildProcess with real processes (sh): exit statuses, environment, process-group signals,
// leftovers and exec failures.
#include "cli/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tenure/testing/waits.h"

namespace tenure::cli {
namespace {

using namespace std::chrono_literals;

// Waits (really) for the child to exit: these are real processes.
std::optional<int> Reap(ChildProcess& child) {
  std::optional<int> status;
  tenure::testing::Eventually([&] { return (status = child.TryReap()).has_value(); });
  return status;
}

// A process is gone (or only a zombie waiting for its new parent).
bool Gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
}

using tenure::testing::Eventually;

TEST(ChildProcessTest, ReportsTheExitStatus) {
  auto child = ChildProcess::Spawn({"sh", "-c", "exit 3"}, {});
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_EQ(Reap(*child), 3);
  EXPECT_FALSE(child->running());
  EXPECT_EQ(child->TryReap(), std::nullopt);  // reaped once
}

TEST(ChildProcessTest, AddsAndOverridesEnvironmentVariables) {
  setenv("TENURE_CHILD_TEST_OLD", "old", 1);
  auto child = ChildProcess::Spawn(
      {"sh", "-c",
       R"(test "$TENURE_FENCING_TOKEN" = 42 && test "$TENURE_CHILD_TEST_OLD" = new && test -n "$PATH")"},
      {{"TENURE_FENCING_TOKEN", "42"}, {"TENURE_CHILD_TEST_OLD", "new"}});
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(Reap(*child), 0);
}

TEST(ChildProcessTest, SignalsReachTheWholeProcessGroup) {
  std::string pid_file = ::testing::TempDir() + "/child_process_test_bg.pid";
  std::remove(pid_file.c_str());
  // sh waits for a background sleep; SIGTERM to the group ends both.
  auto child = ChildProcess::Spawn({"sh", "-c", "sleep 30 & echo $! > " + pid_file + "; wait"}, {});
  ASSERT_TRUE(child.ok());
  pid_t background = 0;
  ASSERT_TRUE(Eventually([&] {
    std::ifstream in(pid_file);
    return static_cast<bool>(in >> background);
  }));
  EXPECT_EQ(getpgid(child->pid()), child->pid());  // a group of its own
  EXPECT_EQ(getpgid(background), child->pid());
  child->Signal(SIGTERM);
  EXPECT_EQ(Reap(*child), 128 + SIGTERM);
  EXPECT_TRUE(Eventually([&] { return Gone(background); }));
}

TEST(ChildProcessTest, LeftoversOfTheGroupDieWithTheCommand) {
  std::string pid_file = ::testing::TempDir() + "/child_process_test_left.pid";
  std::remove(pid_file.c_str());
  auto child =
      ChildProcess::Spawn({"sh", "-c", "sleep 30 & echo $! > " + pid_file + "; exit 0"}, {});
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(Reap(*child), 0);
  pid_t background = 0;
  std::ifstream in(pid_file);
  ASSERT_TRUE(in >> background);
  EXPECT_TRUE(Eventually([&] { return Gone(background); }));
}

TEST(ChildProcessTest, SignalStatusFollowsTheShellConvention) {
  auto child = ChildProcess::Spawn({"sleep", "30"}, {});
  ASSERT_TRUE(child.ok());
  child->Signal(SIGKILL);
  EXPECT_EQ(Reap(*child), 128 + SIGKILL);
  child->Signal(SIGKILL);  // after reaping: no effect, no crash
}

TEST(ChildProcessTest, ACommandThatCannotRunIsAnErrorNotAnExitStatus) {
  auto missing = ChildProcess::Spawn({"/nonexistent/tenure-no-such-command"}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "cannot run /nonexistent/tenure-no-such-command: No such file or directory");
  EXPECT_FALSE(ChildProcess::Spawn({}, {}).ok());
}

TEST(ChildProcessTest, OnlyStandardDescriptorsAreInherited) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);  // not close-on-exec on purpose
  auto child =
      ChildProcess::Spawn({"sh", "-c", "test ! -e /proc/self/fd/" + std::to_string(fds[0])}, {});
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(Reap(*child), 0);
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace tenure::cli
