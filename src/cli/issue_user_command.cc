// `tenure issue-user`: a user's client certificate (CN the user, O each group, clientAuth) and
// a kubeconfig that uses it against the server of the data folder's kubeconfig.
#include "cli/issue_user_command.h"

#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/serve_command.h"
#include "server/certificates.h"
#include "server/credentials.h"

namespace tenure::cli {
namespace {

struct IssueUserFlags {
  std::string user;
  std::vector<std::string> groups;
  long days = 365;
  std::string data_dir;
  std::string server;
  std::string kubeconfig;
};

// The server URL of the data folder's kubeconfig (what `tenure serve` last wrote).
Result<std::string> ServerOf(const std::string& kubeconfig) {
  try {
    YAML::Node config = YAML::LoadFile(kubeconfig);
    std::string url = config["clusters"][0]["cluster"]["server"].as<std::string>("");
    if (!url.empty()) return url;
  } catch (const YAML::Exception&) {
  }
  return Status::NotFound("no server URL in " + kubeconfig + " (give --server)");
}

int IssueUser(const IssueUserFlags& flags) {
  auto fail = [](const std::string& message) {
    std::cerr << "tenure issue-user: " << message << "\n";
    return 2;
  };
  if (flags.user.empty()) return fail("NAME: the user name must not be empty");
  for (char c : flags.user) {
    if (static_cast<unsigned char>(c) < 0x20) return fail("NAME: control characters in the name");
  }
  const std::string data_dir = flags.data_dir.empty() ? DefaultDataDir() : flags.data_dir;
  server::Credentials credentials;
  credentials.ca_cert_file = data_dir + "/ca.crt";
  credentials.ca_key_file = data_dir + "/ca.key";
  auto ca_cert = server::ReadFileText(credentials.ca_cert_file);
  auto ca_key = server::ReadFileText(credentials.ca_key_file);
  if (!ca_cert.ok() || !ca_key.ok()) {
    return fail("--data-dir: " + data_dir +
                " holds no CA (ca.crt and ca.key); start `tenure serve --data-dir " + data_dir +
                "` once first");
  }
  std::string url = flags.server;
  if (url.empty()) {
    auto found = ServerOf(data_dir + "/kubeconfig");
    if (!found.ok()) return fail("--server: " + found.status().message());
    url = *found;
  }
  auto issued = server::IssueCertificate({.use = server::CertificateSpec::Use::kClient,
                                          .common_name = flags.user,
                                          .organizations = flags.groups,
                                          .valid_days = flags.days},
                                         *ca_cert, *ca_key);
  if (!issued.ok()) return fail(issued.status().message());
  const std::string out = flags.kubeconfig.empty() ? flags.user + ".kubeconfig" : flags.kubeconfig;
  // The server is trusted as the data folder's kubeconfig trusts it: by its CA.
  credentials.server_trust_file = credentials.ca_cert_file;
  Status s = server::WriteKubeconfigFor(
      credentials, url, flags.user,
      "    client-certificate-data: " + server::Base64(issued->cert_pem) +
          "\n    client-key-data: " + server::Base64(issued->key_pem) + "\n",
      out);
  if (!s.ok()) return fail("--kubeconfig: " + s.message());
  std::cout << out << "\n";
  return 0;
}

}  // namespace

void AddIssueUserCommand(CLI::App& app) {
  auto flags = std::make_shared<IssueUserFlags>();
  CLI::App* cmd = app.add_subcommand(
      "issue-user",
      "Issue a client certificate for a user (CN the user, O each group), signed by the data "
      "folder's CA, and write a kubeconfig that uses it; prints the kubeconfig's path");
  cmd->add_option("NAME", flags->user, "The user name (what RBAC bindings name)")->required();
  cmd->add_option("--group", flags->groups, "A group of the user (repeatable)");
  cmd->add_option("--days", flags->days, "Days the certificate is valid")
      ->check(CLI::Range(1L, 3650L))
      ->capture_default_str();
  cmd->add_option("--data-dir", flags->data_dir,
                  "The data folder of `tenure serve` (default $XDG_DATA_HOME/tenure or "
                  "~/.local/share/tenure)");
  cmd->add_option("--server", flags->server,
                  "The server URL (default: the one in the data folder's kubeconfig)");
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "Where to write the kubeconfig (default NAME.kubeconfig; written 0600)");
  cmd->callback([flags] { std::exit(IssueUser(*flags)); });
}

}  // namespace tenure::cli
