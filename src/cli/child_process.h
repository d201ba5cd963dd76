// ChildProcess: a command run in a process group of its own, for `tenure run`.
//
// Spawn forks and execs (the child resets signal mask and dispositions, starts a new process
// group, and asks the kernel for SIGKILL when the spawning THREAD dies: call Spawn from a
// thread that lives as long as the process, e.g. main). Exec failures (command not found, not
// executable) are reported as a Status, not as a child exiting 127. Signals go to the whole
// process group. The caller reaps with TryReap after SIGCHLD; nothing is left a zombie.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tenure/status.h"

namespace tenure::cli {

class ChildProcess {
 public:
  // `env` is added to (and overrides entries of) the current environment.
  static Result<ChildProcess> Spawn(const std::vector<std::string>& argv,
                                    const std::vector<std::pair<std::string, std::string>>& env);

  pid_t pid() const { return pid_; }
  // Sends `signal` to the command's process group (no-op once reaped).
  void Signal(int signal) const;
  // Reaps the command if it exited; its status as a shell reports it (exit code, or 128 +
  // signal number). Also SIGKILLs what is left of its process group (e.g. background children)
  // so nothing of the command outlives it.
  std::optional<int> TryReap();
  bool running() const { return !reaped_; }

 private:
  ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// The status a shell reports for a waitpid() status.
int ShellExitStatus(int wait_status);

}  // namespace tenure::cli
