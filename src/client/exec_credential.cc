// Exec credential plugins: validation, KUBERNETES_EXEC_INFO, running the plugin, reading its
// ExecCredential, and the cache that keeps it until it expires or the server refuses it.
#include "client/exec_credential.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "api/time.h"
#include "client/process_env.h"
#include "tenure/log.h"

namespace tenure::client {

namespace {

using json = nlohmann::json;

constexpr std::string_view kGroup = "client.authentication.k8s.io/";

bool SupportedVersion(const std::string& v) {
  return v == "client.authentication.k8s.io/v1" || v == "client.authentication.k8s.io/v1beta1";
}

// What a plugin's run produced.
struct PluginRun {
  int exit_code = 0;
  std::string out, err;
};

Status Unauthorized(const std::string& message) {
  return Status(Reason::kUnauthorized, "getting credentials: " + message);
}

class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

void CloseBoth(int fds[2]) {
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
}

class SpawnAttributes {
 public:
  SpawnAttributes() { posix_spawnattr_init(&attributes_); }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attributes_); }
  posix_spawnattr_t* get() { return &attributes_; }

 private:
  posix_spawnattr_t attributes_;
};

// Waits for `pid` until `deadline`; false when it is still running then. A child that cannot
// be waited for (SIGCHLD ignored: the kernel reaped it) counts as having exited with 0.
bool WaitUntil(pid_t pid, std::chrono::steady_clock::time_point deadline, int& status) {
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) {
      status = 0;
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    poll(nullptr, 0, 5);  // the child closed its output but has not exited yet
  }
}

// Starts the plugin and reads its stdout (and, unless interactive, its stderr) until both close
// and it exits, or `timeout` passes (then it is killed, with its children when it is not
// interactive). The plugin gets no descriptor of this process but its standard ones, no blocked
// signal and default signal handlers, whatever the calling thread has.
Result<PluginRun> Spawn(const ExecConfig& config, bool interactive) {
  auto overrides = config.env;
  overrides.emplace_back("KUBERNETES_EXEC_INFO", ExecInfo(config, interactive));
  std::vector<std::string> env_strings = EnvironmentWith(overrides);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {config.command};
  arg_strings.insert(arg_strings.end(), config.args.begin(), config.args.end());
  std::vector<char*> argv;
  for (std::string& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || (!interactive && pipe2(err, O_CLOEXEC) != 0)) {
    CloseBoth(out);
    return Unauthorized(std::string("exec: cannot create a pipe: ") + std::strerror(errno));
  }
  FileActions actions;
  posix_spawn_file_actions_adddup2(actions.get(), out[1], STDOUT_FILENO);
  if (!interactive) {
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(actions.get(), err[1], STDERR_FILENO);
  }
  posix_spawn_file_actions_addclosefrom_np(actions.get(), STDERR_FILENO + 1);
  SpawnAttributes attributes;
  sigset_t none, every;
  sigemptyset(&none);
  sigfillset(&every);
  posix_spawnattr_setsigmask(attributes.get(), &none);
  posix_spawnattr_setsigdefault(attributes.get(), &every);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  // A group of its own (not when it shares the terminal): a timeout kills what it started too.
  if (!interactive) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(attributes.get(), 0);
  }
  posix_spawnattr_setflags(attributes.get(), flags);
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, config.command.c_str(), actions.get(), attributes.get(),
                             argv.data(), envp.data());
  close(out[1]);
  out[1] = -1;
  if (err[1] >= 0) {
    close(err[1]);
    err[1] = -1;
  }
  if (spawned != 0) {
    CloseBoth(out);
    CloseBoth(err);
    std::string message = "exec: executable " + config.command + " not found";
    if (spawned != ENOENT) {
      message = "exec: cannot run " + config.command + ": " + std::strerror(spawned);
    } else if (!config.install_hint.empty()) {
      message += "\n\nThe kubeconfig names a credential plugin that is not installed. " +
                 config.install_hint;
    }
    return Unauthorized(message);
  }

  PluginRun run;
  auto deadline = std::chrono::steady_clock::now() + config.timeout;
  bool timed_out = false;
  std::vector<pollfd> fds = {{out[0], POLLIN, 0}};
  if (err[0] >= 0) fds.push_back({err[0], POLLIN, 0});
  while (!fds.empty()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    int ready = poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    for (size_t i = 0; i < fds.size();) {
      if (fds[i].revents == 0) {
        ++i;
        continue;
      }
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (fds[i].fd == out[0] ? run.out : run.err).append(buf, static_cast<size_t>(n));
        ++i;
      } else if (n < 0 && errno == EINTR) {
        ++i;
      } else {
        fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  CloseBoth(out);
  CloseBoth(err);
  int status = 0;
  if (timed_out || !WaitUntil(pid, deadline, status)) {
    timed_out = true;
    kill(interactive ? pid : -pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (timed_out) {
    return Unauthorized("exec: executable " + config.command + " did not finish within " +
                        std::to_string(config.timeout.count()) + " ms and was killed");
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

std::string TrimmedStderr(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  constexpr size_t kMax = 2048;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

}  // namespace

Status ValidateExecConfig(const ExecConfig& config, const std::string& user) {
  std::string where = "users[" + user + "].user.exec";
  if (!SupportedVersion(config.api_version)) {
    return Status::BadRequest(where + ".apiVersion: exec plugin: invalid apiVersion \"" +
                              config.api_version +
                              "\" (client.authentication.k8s.io/v1 or /v1beta1)");
  }
  if (config.command.empty()) {
    return Status::BadRequest(where + ".command: required for the exec credential plugin");
  }
  const std::string& mode = config.interactive_mode;
  if (mode.empty()) {
    if (config.api_version == "client.authentication.k8s.io/v1") {
      return Status::BadRequest(where +
                                ".interactiveMode: must be specified (Never, IfAvailable or "
                                "Always) to use the exec credential plugin with "
                                "client.authentication.k8s.io/v1");
    }
  } else if (mode != "Never" && mode != "IfAvailable" && mode != "Always") {
    return Status::BadRequest(where + ".interactiveMode: invalid value \"" + mode +
                              "\": one of Never, IfAvailable, Always");
  }
  return Status::Ok();
}

std::string ExecInfo(const ExecConfig& config, bool interactive) {
  json spec = {{"interactive", interactive}};
  if (config.provide_cluster_info && !config.cluster_json.empty()) {
    json cluster = json::parse(config.cluster_json, nullptr, false);
    if (cluster.is_object()) spec["cluster"] = std::move(cluster);
  }
  json info = {{"kind", "ExecCredential"}, {"apiVersion", config.api_version}, {"spec", spec}};
  return info.dump();
}

Result<ExecCredential> ParseExecCredential(const std::string& output,
                                           const std::string& api_version) {
  json parsed = json::parse(output, nullptr, false);
  if (!parsed.is_object()) {
    return Unauthorized("decoding stdout: the plugin did not print an ExecCredential JSON object");
  }
  std::string kind = parsed.contains("kind") && parsed["kind"].is_string()
                         ? parsed["kind"].get<std::string>()
                         : "";
  std::string version = parsed.contains("apiVersion") && parsed["apiVersion"].is_string()
                            ? parsed["apiVersion"].get<std::string>()
                            : "";
  if (kind != "ExecCredential" || version.rfind(kGroup, 0) != 0) {
    return Unauthorized("decoding stdout: expected kind ExecCredential of " + std::string(kGroup) +
                        "*, got kind \"" + kind + "\" apiVersion \"" + version + "\"");
  }
  if (version != api_version) {
    return Unauthorized("exec plugin is configured to use API version " + api_version +
                        ", plugin returned version " + version);
  }
  if (!parsed.contains("status") || !parsed["status"].is_object()) {
    return Unauthorized("exec plugin didn't return a status field");
  }
  const json& status = parsed["status"];
  auto text = [&](const char* key) -> std::string {
    return status.contains(key) && status[key].is_string() ? status[key].get<std::string>() : "";
  };
  ExecCredential cred;
  cred.token = text("token");
  cred.client_certificate_data = text("clientCertificateData");
  cred.client_key_data = text("clientKeyData");
  if (cred.token.empty() && cred.client_certificate_data.empty() && cred.client_key_data.empty()) {
    return Unauthorized("exec plugin didn't return a token or cert/key pair");
  }
  if (cred.client_certificate_data.empty() != cred.client_key_data.empty()) {
    return Unauthorized("exec plugin returned only certificate or key, not both");
  }
  if (std::string expires = text("expirationTimestamp"); !expires.empty()) {
    auto t = api::ParseTime(expires);
    if (!t) {
      return Unauthorized("decoding stdout: status.expirationTimestamp \"" + expires +
                          "\" is not an RFC 3339 time");
    }
    cred.expiration = *t;
  }
  return cred;
}

Result<ExecCredential> RunExecPlugin(const ExecConfig& config) {
  bool interactive = false;
  if (config.interactive_mode == "Always" || config.interactive_mode == "IfAvailable" ||
      (config.interactive_mode.empty() &&
       config.api_version != "client.authentication.k8s.io/v1")) {
    interactive = isatty(STDIN_FILENO) == 1;
    if (config.interactive_mode == "Always" && !interactive) {
      return Unauthorized(
          "exec plugin cannot support interactive mode: standard input is not a terminal");
    }
  }
  auto run = Spawn(config, interactive);
  if (!run.ok()) return run.status();
  if (!run->err.empty()) {
    Log(LogLevel::kWarning, "credentials", "exec plugin wrote to stderr",
        {{"command", config.command}, {"stderr", TrimmedStderr(run->err)}});
  }
  if (run->exit_code != 0) {
    std::string message = "exec: executable " + config.command + " failed with exit code " +
                          std::to_string(run->exit_code);
    if (!run->err.empty()) message += ": " + TrimmedStderr(run->err);
    return Unauthorized(message);
  }
  return ParseExecCredential(run->out, config.api_version);
}

Result<ExecCredential> ExecCredentialCache::Get() {
  std::lock_guard lock(mu_);
  if (cached_ &&
      (!cached_->expiration || std::chrono::system_clock::now() < *cached_->expiration)) {
    return *cached_;
  }
  ++runs_;
  auto fresh = RunExecPlugin(config_);
  if (!fresh.ok()) {
    cached_.reset();
    Log(LogLevel::kError, "credentials", "exec plugin failed",
        {{"command", config_.command}, {"error", fresh.status().message()}});
    return fresh.status();
  }
  Log(LogLevel::kInfo, "credentials", "exec plugin gave a credential",
      {{"command", config_.command},
       {"kind", fresh->token.empty() ? "client certificate" : "token"},
       {"expires", fresh->expiration ? api::FormatTime(*fresh->expiration) : "never"}});
  cached_ = *fresh;
  return fresh;
}

void ExecCredentialCache::Invalidate(const std::string& token) {
  std::lock_guard lock(mu_);
  if (cached_ && cached_->token == token) cached_.reset();
}

int ExecCredentialCache::runs() const {
  std::lock_guard lock(mu_);
  return runs_;
}

}  // namespace tenure::client
