// `tenure dashboard`: the web dashboard against any API server the kubeconfig reaches, on its
// own HTTP listener (loopback by default), behind one access token.
#include "cli/dashboard_command.h"

#include <openssl/sha.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/inspect_commands.h"
#include "cli/listen_address.h"
#include "client/kube_client.h"
#include "dashboard/dashboard_app.h"
#include "dashboard/token_gate.h"
#include "election/cluster_access.h"
#include "server/http_server.h"

namespace tenure::cli {

namespace {

struct DashboardFlags {
  ConnectionFlags connection;
  std::string listen = "127.0.0.1:8080";
  std::string history_file;
  std::string token_file;
  std::string tls_cert_file;
  std::string tls_private_key_file;
};

// $XDG_STATE_HOME/tenure/dashboard-terms-<hash of the server's URL>.jsonl, else under
// ~/.local/state/tenure/, else ./: one history per cluster.
std::string DefaultHistoryFile(const std::string& server) {
  std::string dir;
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg) {
    dir = std::string(xdg) + "/tenure";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::string(home) + "/.local/state/tenure";
  } else {
    dir = ".";
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(server.data()), server.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hash;
  for (int i = 0; i < 6; ++i) {
    hash += kHex[digest[i] >> 4];
    hash += kHex[digest[i] & 15];
  }
  return dir + "/dashboard-terms-" + hash + ".jsonl";
}

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "::1" || host == "localhost";
}

int RunDashboard(const DashboardFlags& flags) {
  sigset_t signals = BlockStopSignals();
  server::HttpServerOptions http;
  if (Status s = ParseListenAddress(flags.listen, http.address, http.port); !s.ok()) {
    std::cerr << "tenure dashboard: --listen: " << s.message() << "\n";
    return 2;
  }
  if (flags.tls_cert_file.empty() != flags.tls_private_key_file.empty()) {
    std::cerr << "tenure dashboard: --tls-cert-file and --tls-private-key-file go together\n";
    return 2;
  }
  http.tls = !flags.tls_cert_file.empty();
  http.cert_file = flags.tls_cert_file;
  http.key_file = flags.tls_private_key_file;
  if (!http.tls && !IsLoopback(http.address)) {
    std::cerr << "tenure dashboard: --listen " << flags.listen
              << " is not a loopback address: give --tls-cert-file and --tls-private-key-file "
                 "(the access token must not cross the network in the clear)\n";
    return 2;
  }
  std::string token;
  if (!flags.token_file.empty()) {
    std::ifstream in(flags.token_file);
    if (!in || !std::getline(in, token) || token.empty()) {
      std::cerr << "tenure dashboard: --token-file: cannot read a token from " << flags.token_file
                << "\n";
      return 2;
    }
  } else {
    auto made = dashboard::NewAccessToken();
    if (!made.ok()) {
      std::cerr << "tenure dashboard: " << made.status().message() << "\n";
      return 1;
    }
    token = *made;
  }
  auto api = ConnectOrReport("dashboard", flags.connection);
  if (!api) return 1;
  const std::string history =
      flags.history_file.empty() ? DefaultHistoryFile(api->server()) : flags.history_file;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(history).parent_path(), ec);
  dashboard::BoardOptions board_options;
  board_options.archive_path = history;
  board_options.source = api->server();
  auto board =
      dashboard::Board::Start(KubeClientOf(*api->cluster()).shared_from_this(), board_options);
  if (!board.ok()) {
    std::cerr << "tenure dashboard: " << board.status().message() << "\n";
    return 1;
  }
  dashboard::DashboardAppOptions app_options;
  app_options.login_hint = "the access token `tenure dashboard` printed (or its --token-file's)";
  app_options.token_in_address = true;
  auto app = std::make_shared<dashboard::DashboardApp>(
      std::shared_ptr<dashboard::Board>(std::move(*board)), app_options);
  auto listener =
      server::HttpServer::Start(http, std::make_shared<dashboard::TokenGate>(app, token));
  if (!listener.ok()) {
    std::cerr << "tenure dashboard: cannot listen on " << flags.listen << ": "
              << listener.status().message() << "\n";
    return 1;
  }
  std::string host =
      http.address.find(':') != std::string::npos ? "[" + http.address + "]" : http.address;
  const std::string url = std::string(http.tls ? "https://" : "http://") + host + ":" +
                          std::to_string((*listener)->port()) + app->prefix() + "/";
  std::cout << "tenure dashboard: listening on " << url << "\n";
  std::cout << "  API server:   " << api->server() << "\n";
  std::cout << "  term history: " << history << "\n";
  if (flags.token_file.empty()) {
    std::cout << "  open:         " << url << "?token=" << token << std::endl;
  } else {
    std::cout << "  sign in with the token in " << flags.token_file << std::endl;
  }
  int signal = 0;
  sigwait(&signals, &signal);
  std::cout << "tenure dashboard: stopping" << std::endl;
  app->Stop();
  (*listener)->Stop();
  return 0;
}

}  // namespace

void AddDashboardCommand(CLI::App& app) {
  auto flags = std::make_shared<DashboardFlags>();
  CLI::App* command = app.add_subcommand(
      "dashboard",
      "Serve the web dashboard of the leader elections the kubeconfig's API server "
      "holds (any Kubernetes API server, tenure serve included)");
  AddConnectionFlags(command, flags->connection);
  command->add_option("--listen", flags->listen, "HOST:PORT to serve the dashboard on")
      ->capture_default_str();
  command->add_option("--history-file", flags->history_file,
                      "Where the term history is kept (default: one file per API server, "
                      "$XDG_STATE_HOME/tenure/dashboard-terms-HASH.jsonl or "
                      "~/.local/state/tenure/dashboard-terms-HASH.jsonl)");
  command->add_option("--token-file", flags->token_file,
                      "A file whose first line is the access token (default: a new one, printed)");
  command->add_option("--tls-cert-file", flags->tls_cert_file,
                      "Serve HTTPS with this certificate (needed off loopback)");
  command->add_option("--tls-private-key-file", flags->tls_private_key_file,
                      "The key of --tls-cert-file");
  command->callback([flags] { std::exit(RunDashboard(*flags)); });
}

}  // namespace tenure::cli
