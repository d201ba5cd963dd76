// Tests of kubeconfig loading: server URLs, replica lists, contexts, relative files, in-cluster.
#include "client/kube_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace tenure::client {
namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/tenure-kubeconfig-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ + "/" + name) << text;
    return path_ + "/" + name;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ServerUrlTest, ParsesSchemeHostPortAndPrefix) {
  ClusterConfig c;
  ASSERT_TRUE(ParseServerUrl("https://127.0.0.1:6443", c).ok());
  EXPECT_TRUE(c.endpoint.tls.enabled);
  EXPECT_EQ(c.endpoint.host, "127.0.0.1");
  EXPECT_EQ(c.endpoint.port, 6443);
  ASSERT_TRUE(ParseServerUrl("https://kube.example/api-proxy/", c).ok());
  EXPECT_EQ(c.endpoint.port, 443);
  EXPECT_EQ(c.path_prefix, "/api-proxy");
  ASSERT_TRUE(ParseServerUrl("http://[::1]:8080", c).ok());
  EXPECT_FALSE(c.endpoint.tls.enabled);
  EXPECT_EQ(c.endpoint.host, "::1");
  EXPECT_EQ(c.endpoint.port, 8080);
  EXPECT_FALSE(ParseServerUrl("ftp://x", c).ok());
  EXPECT_FALSE(ParseServerUrl("https://host:99999", c).ok());
}

TEST(ServerListTest, SplitsAtCommasAndRejectsEmptyEntries) {
  auto urls = SplitServerList("https://a:1, https://b:2 ,https://c");
  ASSERT_TRUE(urls.ok()) << urls.status().ToString();
  EXPECT_EQ(*urls, (std::vector<std::string>{"https://a:1", "https://b:2", "https://c"}));
  EXPECT_FALSE(SplitServerList("").ok());
  EXPECT_FALSE(SplitServerList("https://a,,https://b").ok());
  EXPECT_FALSE(SplitServerList("https://a,").ok());
}

TEST(ServerListTest, ReplicasKeepTheLoadedCredentials) {
  ClusterConfig c;
  ASSERT_TRUE(ParseServerUrl("https://10.0.0.1:6443", c).ok());
  c.endpoint.tls.ca_data = "PEM CA";
  c.endpoint.tls.server_name = "kubernetes";
  c.token = "t";
  ASSERT_TRUE(
      UseServers(c, {"https://127.0.0.1:1001,https://127.0.0.1:1002", "https://[::1]:1003"}).ok());
  auto all = AllEndpoints(c);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].port, 1001);
  EXPECT_EQ(all[1].port, 1002);
  EXPECT_EQ(all[2].host, "::1");
  for (const auto& ep : all) {
    EXPECT_TRUE(ep.tls.enabled);
    EXPECT_EQ(ep.tls.ca_data, "PEM CA");
    EXPECT_EQ(ep.tls.server_name, "kubernetes");
  }
  EXPECT_EQ(c.token, "t");
  EXPECT_EQ(c.server, "https://127.0.0.1:1001,https://127.0.0.1:1002,https://[::1]:1003");

  ClusterConfig unchanged = c;
  ASSERT_TRUE(UseServers(unchanged, {}).ok());
  EXPECT_EQ(AllEndpoints(unchanged).size(), 3u);
}

TEST(ServerListTest, RejectsReplicasThatCannotBeOneServer) {
  ClusterConfig c;
  EXPECT_FALSE(UseServers(c, {"https://a:1,http://b:2"}).ok());
  EXPECT_FALSE(UseServers(c, {"https://a:1/x,https://b:2/y"}).ok());
  EXPECT_FALSE(UseServers(c, {"a:1"}).ok());
  EXPECT_FALSE(UseServers(c, {"https://a:1,"}).ok());
}

TEST(KubeconfigTest, ReadsTheCurrentContextWithInlineData) {
  TempDir dir;
  std::string path = dir.Write("config", R"(apiVersion: v1
kind: Config
current-context: two
clusters:
- name: c1
  cluster: {server: "https://10.0.0.1:443"}
- name: c2
  cluster:
    server: https://127.0.0.1:7443
    certificate-authority-data: UEVNIENB
users:
- name: u2
  user:
    token: secret-token
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
contexts:
- name: one
  context: {cluster: c1, user: u2}
- name: two
  context: {cluster: c2, user: u2, namespace: team}
)");
  auto c = LoadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->endpoint.port, 7443);
  EXPECT_EQ(c->endpoint.tls.ca_data, "PEM CA");
  EXPECT_EQ(c->endpoint.tls.cert_data, "CERT");
  EXPECT_EQ(c->endpoint.tls.key_data, "KEY");
  EXPECT_EQ(c->token, "secret-token");
  EXPECT_EQ(c->namespace_, "team");
  auto one = LoadKubeconfig(path, "one");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->endpoint.host, "10.0.0.1");
  EXPECT_EQ(one->namespace_, "default");
  EXPECT_TRUE(LoadKubeconfig(path, "missing").status().IsNotFound());
}

TEST(KubeconfigTest, ResolvesFilesRelativeToTheKubeconfig) {
  TempDir dir;
  std::string path = dir.Write("config", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority: ca.crt, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {tokenFile: token, client-certificate: /abs/cert.pem, client-key: key.pem}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)");
  auto c = LoadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->endpoint.tls.ca_file, dir.path() + "/ca.crt");
  EXPECT_TRUE(c->endpoint.tls.insecure_skip_verify);
  EXPECT_EQ(c->token_file, dir.path() + "/token");
  EXPECT_EQ(c->endpoint.tls.cert_file, "/abs/cert.pem");
  EXPECT_EQ(c->endpoint.tls.key_file, dir.path() + "/key.pem");
}

TEST(KubeconfigTest, MalformedFilesGiveClearErrors) {
  TempDir dir;
  EXPECT_TRUE(LoadKubeconfig(dir.path() + "/nope").status().IsNotFound());
  auto bad = LoadKubeconfig(dir.Write("bad", "clusters: [unterminated"));
  EXPECT_EQ(bad.status().reason(), Reason::kBadRequest);
  auto no_context = LoadKubeconfig(dir.Write("empty", "kind: Config\n"));
  EXPECT_EQ(no_context.status().reason(), Reason::kBadRequest);
  auto bad_b64 = LoadKubeconfig(dir.Write("b64", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority-data: "!!!"}}]
contexts: [{name: x, context: {cluster: c}}]
)"));
  EXPECT_EQ(bad_b64.status().reason(), Reason::kBadRequest);
}

// KUBECONFIG=a:b with kubectl's rules: the first file naming a cluster, user or context wins, so
// does the first current-context; missing files are skipped; paths resolve against their file.
TEST(KubeconfigMergeTest, AListIsMergedWithKubectlRules) {
  TempDir a_dir, b_dir;
  std::string a = a_dir.Write("config", R"(current-context: dev
clusters: [{name: shared, cluster: {server: "https://10.0.0.1:6443"}}]
users: [{name: alice, user: {token: from-a}}]
contexts: [{name: dev, context: {cluster: shared, user: alice, namespace: team-a}}]
)");
  std::string b = b_dir.Write("config", R"(current-context: prod
clusters:
- {name: shared, cluster: {server: "https://10.9.9.9:6443"}}
- {name: prod, cluster: {server: "https://10.0.0.2:6443", certificate-authority: ca.crt}}
users: [{name: alice, user: {token: from-b}}, {name: bob, user: {tokenFile: token}}]
contexts: [{name: dev, context: {cluster: prod, user: bob}}, {name: prod, context: {cluster: prod, user: bob, namespace: ops}}]
)");
  std::string list = a + ":" + a_dir.path() + "/missing:" + b;
  ASSERT_EQ(setenv("KUBECONFIG", list.c_str(), 1), 0);
  auto dev = LoadKubeconfig();
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->server, "https://10.0.0.1:6443");  // a's cluster "shared", a's context "dev"
  EXPECT_EQ(dev->token, "from-a");
  EXPECT_EQ(dev->namespace_, "team-a");
  auto prod = LoadKubeconfig("", "prod");  // only b defines it
  ASSERT_TRUE(prod.ok()) << prod.status().ToString();
  EXPECT_EQ(prod->server, "https://10.0.0.2:6443");
  EXPECT_EQ(prod->endpoint.tls.ca_file, b_dir.path() + "/ca.crt");
  EXPECT_EQ(prod->token_file, b_dir.path() + "/token");
  EXPECT_EQ(prod->namespace_, "ops");
  // b first: its current-context and its definitions win.
  std::string reversed = b + ":" + a;
  ASSERT_EQ(setenv("KUBECONFIG", reversed.c_str(), 1), 0);
  auto first_b = LoadKubeconfig();
  ASSERT_TRUE(first_b.ok()) << first_b.status().ToString();
  EXPECT_EQ(first_b->server, "https://10.0.0.2:6443");
  EXPECT_EQ(first_b->namespace_, "ops");
  auto dev_from_b = LoadKubeconfig("", "dev");
  ASSERT_TRUE(dev_from_b.ok());
  EXPECT_EQ(dev_from_b->server, "https://10.0.0.2:6443");
  std::string none = a_dir.path() + "/x:" + b_dir.path() + "/y";
  ASSERT_EQ(setenv("KUBECONFIG", none.c_str(), 1), 0);
  auto missing = LoadKubeconfig();
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("no file of KUBECONFIG="), std::string::npos);
  auto unknown = LoadKubeconfig(a, "staging");
  EXPECT_TRUE(unknown.status().IsNotFound());
  EXPECT_NE(unknown.status().message().find("context \"staging\" not found in " + a),
            std::string::npos);
  unsetenv("KUBECONFIG");
}

TEST(KubeconfigExecTest, ReadsTheExecSectionAndChecksItAsClientGoDoes) {
  TempDir dir;
  std::string path = dir.Write("config", R"(current-context: x
clusters:
- name: c
  cluster:
    server: "https://127.0.0.1:1"
    tls-server-name: api.internal
    certificate-authority-data: UEVNIENB
    extensions:
    - {name: client.authentication.k8s.io/exec, extension: {audience: tenure, retries: 3}}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/get-token
      args: [--cluster, c]
      env: [{name: REGION, value: eu-1}]
      installHint: install get-token
      provideClusterInfo: true
      interactiveMode: Never
contexts: [{name: x, context: {cluster: c, user: u}}]
)");
  auto c = LoadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->exec.has_value());
  EXPECT_EQ(c->exec->command, dir.path() + "/bin/get-token");
  EXPECT_EQ(c->exec->args, (std::vector<std::string>{"--cluster", "c"}));
  ASSERT_EQ(c->exec->env.size(), 1u);
  EXPECT_EQ(c->exec->env[0].second, "eu-1");
  EXPECT_EQ(c->exec->install_hint, "install get-token");
  EXPECT_TRUE(c->exec->provide_cluster_info);
  EXPECT_EQ(c->exec->interactive_mode, "Never");
  EXPECT_EQ(
      c->exec->cluster_json,
      R"({"certificate-authority-data":"UEVNIENB","config":{"audience":"tenure","retries":3},)"
      R"("server":"https://127.0.0.1:1","tls-server-name":"api.internal"})");

  auto with_user = [&](const std::string& exec) {
    return LoadKubeconfig(dir.Write("bad", R"(current-context: x
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {exec: )" + exec + R"(}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)"));
  };
  auto old_version = with_user("{apiVersion: client.authentication.k8s.io/v1alpha1, command: x}");
  EXPECT_EQ(old_version.status().message(),
            "users[u].user.exec.apiVersion: exec plugin: invalid apiVersion "
            "\"client.authentication.k8s.io/v1alpha1\" (client.authentication.k8s.io/v1 or "
            "/v1beta1)");
  auto no_mode = with_user("{apiVersion: client.authentication.k8s.io/v1, command: x}");
  EXPECT_NE(
      no_mode.status().message().find("users[u].user.exec.interactiveMode: must be specified"),
      std::string::npos);
  auto beta_default = with_user("{apiVersion: client.authentication.k8s.io/v1beta1, command: x}");
  EXPECT_TRUE(beta_default.ok()) << beta_default.status().ToString();
  auto bad_mode = with_user(
      "{apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Sometimes}");
  EXPECT_EQ(bad_mode.status().reason(), Reason::kBadRequest);
  auto no_command = with_user("{apiVersion: client.authentication.k8s.io/v1beta1}");
  EXPECT_NE(no_command.status().message().find("users[u].user.exec.command"), std::string::npos);
}

TEST(InClusterConfigTest, UsesServiceEnvironmentAndAccountFiles) {
  TempDir dir;
  dir.Write("token", "tok\n");
  dir.Write("ca.crt", "CA");
  dir.Write("namespace", "prod\n");
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto c = LoadInClusterConfig(dir.path());
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->endpoint.host, "10.96.0.1");
  EXPECT_EQ(c->endpoint.port, 443);
  EXPECT_TRUE(c->endpoint.tls.enabled);
  EXPECT_EQ(c->token_file, dir.path() + "/token");
  EXPECT_EQ(c->endpoint.tls.ca_file, dir.path() + "/ca.crt");
  EXPECT_EQ(c->namespace_, "prod");
  EXPECT_TRUE(LoadInClusterConfig(dir.path()).status().IsNotFound());  // env unset now
}

}  // namespace
}  // namespace tenure::client
