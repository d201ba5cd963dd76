// Exec credential plugins: what a plugin must print, how it is run (args, env, cluster info,
// stderr, exit codes, a missing command, one that hangs) and how its credential is cached.
#include "client/exec_credential.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace tenure::client {
namespace {

constexpr char kV1[] = "client.authentication.k8s.io/v1";

class PluginDir {
 public:
  PluginDir() {
    char tmpl[] = "/tmp/tenure-exec-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~PluginDir() { std::filesystem::remove_all(path_); }
  // An executable shell script `name` with `body`.
  std::string Script(const std::string& name, const std::string& body) const {
    std::string file = path_ + "/" + name;
    std::ofstream(file) << "#!/bin/sh\n" << body;
    chmod(file.c_str(), 0755);
    return file;
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(path_ + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

ExecConfig Config(const std::string& command) {
  ExecConfig c;
  c.api_version = kV1;
  c.command = command;
  c.interactive_mode = "Never";
  return c;
}

TEST(ExecCredentialParseTest, ReadsATokenOrACertificatePairWithItsExpiry) {
  auto token = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
      R"("status":{"token":"t0k","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      kV1);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(token->token, "t0k");
  ASSERT_TRUE(token->expiration.has_value());
  EXPECT_EQ(std::chrono::system_clock::to_time_t(*token->expiration), 1893553445);
  auto pair = ParseExecCredential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
      R"("status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})",
      "client.authentication.k8s.io/v1beta1");
  ASSERT_TRUE(pair.ok()) << pair.status().ToString();
  EXPECT_EQ(pair->client_certificate_data, "CERT");
  EXPECT_FALSE(pair->expiration.has_value());
}

TEST(ExecCredentialParseTest, RefusesWhatClientGoRefuses) {
  auto message = [](const std::string& out) {
    auto r = ParseExecCredential(out, kV1);
    EXPECT_EQ(r.status().reason(), Reason::kUnauthorized);
    return r.status().message();
  };
  EXPECT_EQ(
      message(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"x"}})"),
      "getting credentials: exec plugin is configured to use API version "
      "client.authentication.k8s.io/v1, plugin returned version "
      "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(message(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})"),
            "getting credentials: exec plugin didn't return a status field");
  EXPECT_EQ(
      message(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{}})"),
      "getting credentials: exec plugin didn't return a token or cert/key pair");
  EXPECT_EQ(
      message(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientKeyData":"K"}})"),
      "getting credentials: exec plugin returned only certificate or key, not both");
  EXPECT_NE(message("not json").find("decoding stdout"), std::string::npos);
  EXPECT_NE(
      message(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"x","expirationTimestamp":"soon"}})")
          .find("expirationTimestamp \"soon\""),
      std::string::npos);
}

TEST(ExecPluginTest, RunsWithArgsEnvAndClusterInfo) {
  PluginDir dir;
  std::string plugin = dir.Script("plugin", R"(
printf '%s\n' "$@" > ")" + dir.path() + R"(/args"
printf '%s' "$REGION" > ")" + dir.path() + R"(/region"
printf '%s' "$KUBERNETES_EXEC_INFO" > ")" + dir.path() +
                                                R"(/info"
echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"abc"}}'
)");
  ExecConfig c = Config(plugin);
  c.args = {"--cluster", "a b"};
  c.env = {{"REGION", "eu-1"}};
  c.provide_cluster_info = true;
  c.cluster_json = R"({"server":"https://10.0.0.1:6443"})";
  auto cred = RunExecPlugin(c);
  ASSERT_TRUE(cred.ok()) << cred.status().ToString();
  EXPECT_EQ(cred->token, "abc");
  EXPECT_EQ(dir.Read("args"), "--cluster\na b\n");
  EXPECT_EQ(dir.Read("region"), "eu-1");
  auto info = nlohmann::json::parse(dir.Read("info"));
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["apiVersion"], kV1);
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://10.0.0.1:6443");
}

// What the plugin inherits: the kubeconfig's env over this process's (a variable set in both
// takes the kubeconfig's value: C and Go read the first copy of a name), no descriptor of this
// process beyond the standard ones, no blocked signal.
TEST(ExecPluginTest, TheKubeconfigsEnvWinsAndNothingElseLeaksIn) {
  PluginDir dir;
  ASSERT_EQ(setenv("REGION", "from-the-process", 1), 0);
  int leaked = open("/dev/null", O_RDONLY);  // no O_CLOEXEC, as a socket of Boost.Asio
  ASSERT_GE(leaked, 3);
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  std::string plugin = dir.Script(
      "inherit",
      "printf '%s' \"$REGION\" > " + dir.path() + "/region\n" + "[ -e /proc/$$/fd/" +
          std::to_string(leaked) + " ] && echo leaked > " + dir.path() + "/fd\n" +
          // Read by the shell's builtins before it runs any command: while dash waits for a
          // child it blocks every signal for a moment, which a grep of its status could see.
          "while IFS= read -r line; do case \"$line\" in SigBlk:*) printf '%s\\n' \"$line\" > " +
          dir.path() + "/sigblk;; esac; done < /proc/$$/status\n" +
          R"(echo '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t"}}')");
  ExecConfig c = Config(plugin);
  c.env = {{"REGION", "eu-1"}};
  auto cred = RunExecPlugin(c);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(leaked);
  unsetenv("REGION");
  ASSERT_TRUE(cred.ok()) << cred.status().ToString();
  EXPECT_EQ(dir.Read("region"), "eu-1");
  EXPECT_EQ(dir.Read("fd"), "");
  EXPECT_EQ(dir.Read("sigblk"), "SigBlk:\t0000000000000000\n");
}

TEST(ExecPluginTest, AMalformedCredentialIsAnErrorNotACrash) {
  PluginDir dir;
  for (
      const char* output :
      {R"({"kind":1})", R"({"kind":"ExecCredential","apiVersion":7})",
       R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":5}})",
       "[]", ""}) {
    auto r = ParseExecCredential(output, kV1);
    EXPECT_EQ(r.status().reason(), Reason::kUnauthorized) << output;
  }
}

// A plugin that outlives its timeout is killed with what it started.
TEST(ExecPluginTest, ATimeoutKillsThePluginAndItsChildren) {
  PluginDir dir;
  ExecConfig c =
      Config(dir.Script("forks", "sleep 60 &\necho $! > " + dir.path() + "/child\nwait\n"));
  c.timeout = std::chrono::milliseconds(300);
  auto killed = RunExecPlugin(c);
  EXPECT_NE(killed.status().message().find("did not finish within 300 ms"), std::string::npos);
  pid_t child = std::atoi(dir.Read("child").c_str());
  ASSERT_GT(child, 0);
  // Gone, or a zombie waiting for whoever reaps orphans here.
  auto gone = [&] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    return text.empty() || text.find(") Z ") != std::string::npos;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!gone() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_TRUE(gone()) << "the plugin's child " << child << " outlived its timeout";
}

TEST(ExecPluginTest, FailuresNameTheCommandItsExitCodeAndItsStderr) {
  PluginDir dir;
  auto failed =
      RunExecPlugin(Config(dir.Script("fails", "echo 'token expired, run login' >&2\nexit 3\n")));
  EXPECT_EQ(failed.status().reason(), Reason::kUnauthorized);
  EXPECT_EQ(failed.status().message(),
            "getting credentials: exec: executable " + dir.path() +
                "/fails failed with exit code 3: token expired, run login");
  ExecConfig missing = Config("tenure-no-such-plugin");
  missing.install_hint = "Install it with: apt install tenure-no-such-plugin";
  auto not_found = RunExecPlugin(missing);
  EXPECT_EQ(not_found.status().reason(), Reason::kUnauthorized);
  EXPECT_NE(not_found.status().message().find("exec: executable tenure-no-such-plugin not found"),
            std::string::npos);
  EXPECT_NE(not_found.status().message().find("apt install tenure-no-such-plugin"),
            std::string::npos);
  ExecConfig hangs = Config(dir.Script("hangs", "exec sleep 60\n"));
  hangs.timeout = std::chrono::milliseconds(200);
  auto killed = RunExecPlugin(hangs);
  EXPECT_NE(killed.status().message().find("did not finish within 200 ms"), std::string::npos);
  ExecConfig always = Config(dir.Script("ok", "echo '{}'\n"));
  always.interactive_mode = "Always";
  if (!isatty(0)) {
    EXPECT_EQ(RunExecPlugin(always).status().message(),
              "getting credentials: exec plugin cannot support interactive mode: standard input "
              "is not a terminal");
  }
}

TEST(ExecCredentialCacheTest, KeepsTheCredentialUntilItExpiresOrIsRefused) {
  PluginDir dir;
  // Each run prints a new token; the expiry comes from the file `expires` (empty: none).
  std::string plugin =
      dir.Script("count", "n=$(cat " + dir.path() + "/runs 2>/dev/null || echo 0)\n" +
                              "n=$((n+1)); echo $n > " + dir.path() + "/runs\n" + "e=$(cat " +
                              dir.path() + "/expires 2>/dev/null)\n" +
                              R"(if [ -n "$e" ]; then x=",\"expirationTimestamp\":\"$e\""; fi
echo "{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"t$n\"$x}}"
)");
  ExecCredentialCache cache(Config(plugin));
  EXPECT_EQ(cache.Get()->token, "t1");
  EXPECT_EQ(cache.Get()->token, "t1");  // no expiry: kept
  EXPECT_EQ(cache.runs(), 1);
  cache.Invalidate("another token");  // a 401 to a credential already replaced: kept
  EXPECT_EQ(cache.Get()->token, "t1");
  cache.Invalidate("t1");
  EXPECT_EQ(cache.Get()->token, "t2");
  EXPECT_EQ(cache.runs(), 2);
  std::ofstream(dir.path() + "/expires") << "2000-01-01T00:00:00Z";
  cache.Invalidate("t2");
  EXPECT_EQ(cache.Get()->token, "t3");  // already expired when it came
  EXPECT_EQ(cache.Get()->token, "t4");  // so every use runs the plugin again
  std::ofstream(dir.path() + "/expires") << "2100-01-01T00:00:00Z";
  cache.Invalidate("t4");
  EXPECT_EQ(cache.Get()->token, "t5");
  EXPECT_EQ(cache.Get()->token, "t5");  // valid until 2100
  EXPECT_EQ(cache.runs(), 5);
}

}  // namespace
}  // namespace tenure::client
