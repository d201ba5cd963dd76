// ChildProcess: a command of `tenure run` in its own process group: spawn, signal, reap.
#include "cli/child_process.h"
#include "client/process_env.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace tenure::cli {

namespace {

// Child side after fork: only async-signal-safe calls until exec.
[[noreturn]] void ExecChild(pid_t parent, int error_pipe, char* const* argv, char* const* envp) {
  // Die with the thread that spawned us (tenure run killed with SIGKILL must not leave the
  // command running: another candidate could take over while it still acts).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
  setpgid(0, 0);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // The command inherits only stdin, stdout and stderr (not our sockets, signalfd, ...).
  if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 65536; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  execvpe(argv[0], argv, envp);
  int err = errno;
  [[maybe_unused]] ssize_t n = write(error_pipe, &err, sizeof err);
  _exit(127);
}

}  // namespace

int ShellExitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

Result<ChildProcess> ChildProcess::Spawn(
    const std::vector<std::string>& argv,
    const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return Status::BadRequest("no command given");
  // Everything the child needs is built before fork: after it only exec-safe calls are allowed.
  std::vector<std::string> env_strings = client::EnvironmentWith(env);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    return Status::Internal(std::string("pipe: ") + std::strerror(errno));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return Status::Internal(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    ExecChild(parent, pipe_fds[1], args.data(), envp.data());
  }
  close(pipe_fds[1]);
  setpgid(pid, pid);  // also here, so the group exists before we may signal it
  int err = 0;
  ssize_t n;
  do {
    n = read(pipe_fds[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  close(pipe_fds[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return Status::BadRequest("cannot run " + argv[0] + ": " + std::strerror(err));
  }
  return ChildProcess(pid);
}

void ChildProcess::Signal(int signal) const {
  if (!reaped_) kill(-pid_, signal);
}

std::optional<int> ChildProcess::TryReap() {
  if (reaped_) return std::nullopt;
  // Peek without reaping: while the zombie exists its pid (and so the group id) cannot be
  // reused, so the group kill below cannot hit an unrelated process.
  siginfo_t info{};
  int r;
  do {
    r = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  if (r != 0 || info.si_pid != pid_) return std::nullopt;
  kill(-pid_, SIGKILL);  // leftovers of the group (background children of the command)
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  return ShellExitStatus(status);
}

}  // namespace tenure::cli
