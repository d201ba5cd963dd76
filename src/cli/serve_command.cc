#include "cli/serve_command.h"

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "server/server.h"

namespace tenure::cli {

namespace {

struct ServeFlags {
  std::string data_dir;
  std::string listen = "127.0.0.1:6443";
  bool insecure_http = false;
  size_t watch_history = 100000;
  std::string feature_gates;
  std::string runtime_config;
  int threads = 0;
};

std::string DefaultDataDir() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/tenure";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.local/share/tenure";
  }
  return "tenure-data";
}

Status ParseListen(const std::string& listen, server::ServerOptions& options) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return Status::BadRequest("--listen wants HOST:PORT");
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (...) {
    port = -1;
  }
  if (port < 0 || port > 65535) return Status::BadRequest("--listen: invalid port in " + listen);
  options.address = host.empty() ? "127.0.0.1" : host;
  options.port = static_cast<uint16_t>(port);
  return Status::Ok();
}

int Serve(const ServeFlags& flags) {
  server::ServerOptions options;
  options.data_dir = flags.data_dir.empty() ? DefaultDataDir() : flags.data_dir;
  options.tls = !flags.insecure_http;
  options.watch_history = flags.watch_history;
  options.threads = flags.threads;
  for (Status s : {ParseListen(flags.listen, options),
                   ApplyFeatureGates(flags.feature_gates, options),
                   ApplyRuntimeConfig(flags.runtime_config, options)}) {
    if (!s.ok()) {
      std::cerr << "tenure serve: " << s.message() << "\n";
      return 2;
    }
  }
  if (!options.tls && options.address != "127.0.0.1" && options.address != "::1" &&
      options.address != "localhost") {
    std::cerr << "tenure serve: --insecure-http is only allowed on a loopback address\n";
    return 2;
  }
  // Block the signals before any thread starts so that only sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = server::Server::Start(options);
  if (!server.ok()) {
    std::cerr << "tenure serve: " << server.status().ToString() << "\n";
    return 1;
  }
  const auto& credentials = (*server)->credentials();
  std::cout << "tenure serve: listening on " << (*server)->url() << std::endl;
  std::cout << "  data folder: " << options.data_dir << "\n"
            << "  try:         KUBECONFIG=" << credentials.kubeconfig_file
            << " kubectl get leases -A" << std::endl;
  int signal = 0;
  sigwait(&signals, &signal);
  std::cout << "tenure serve: stopping (" << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ")"
            << std::endl;
  (*server)->Stop();
  return 0;
}

}  // namespace

void AddServeCommand(CLI::App& app) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* serve = app.add_subcommand(
      "serve", "Run the coordination server (Kubernetes API for Lease, LeaseCandidate, ...)");
  serve->add_option("--data-dir", flags->data_dir,
                    "Folder for the database, certificates, token and kubeconfig "
                    "(default $XDG_DATA_HOME/tenure or ~/.local/share/tenure)");
  serve->add_option("--listen", flags->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  serve->add_flag("--insecure-http", flags->insecure_http,
                  "Serve plain HTTP instead of HTTPS (loopback only; for tests)");
  serve->add_option("--watch-history", flags->watch_history,
                    "Events kept for resuming watches from an older resourceVersion")
      ->capture_default_str();
  serve->add_option("--feature-gates", flags->feature_gates,
                    "Kubernetes feature gates, e.g. CoordinatedLeaderElection=false "
                    "(tenure's default: true)");
  serve->add_option("--runtime-config", flags->runtime_config,
                    "API versions to serve, e.g. coordination.k8s.io/v1beta1=false");
  serve->add_option("--threads", flags->threads, "HTTP threads (default: one per core)");
  serve->callback([flags] { std::exit(Serve(*flags)); });
}

}  // namespace tenure::cli
