// What the inspection commands share: registration, connection flags, lease references, signals.
#include "cli/inspect_commands.h"

#include <CLI/CLI.hpp>
#include <iostream>

namespace tenure::cli {

void AddInspectCommands(CLI::App& app) {
  AddGetCommand(app);
  AddDescribeCommand(app);
  AddWatchCommand(app);
  AddReleaseCommand(app);
  AddDemoCommand(app);
  AddDemoCandidateCommand(app);
}

void AddConnectionFlags(CLI::App* command, ConnectionFlags& flags) {
  command->add_option("--kubeconfig", flags.kubeconfig,
                      "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)");
  command->add_option("--context", flags.context, "kubeconfig context (default: the current one)");
  command
      ->add_option("--server,--servers", flags.servers,
                   "API server URL(s) replacing the kubeconfig's, comma-separated: replicas of "
                   "one server (same CA and credentials), tried in turn when one fails")
      ->envname("TENURE_SERVERS");
}

std::optional<LeaseApi> ConnectOrReport(const std::string& command, const ConnectionFlags& flags) {
  auto api = LeaseApi::Connect(flags);
  if (!api.ok()) {
    std::cerr << "tenure " << command << ": " << api.status().message() << "\n";
    return std::nullopt;
  }
  return std::move(*api);
}

void AddLeaseRefOptions(CLI::App* command, LeaseRefFlags& flags, bool kind_word) {
  if (kind_word) {
    command->add_option("kind", flags.kind, "lease")
        ->required()
        ->check(CLI::IsMember({"lease", "leases"}));
  }
  command->add_option("lease", flags.lease, "NAMESPACE/NAME (or NAME with -n)")->required();
  command->add_option("-n,--namespace", flags.ns, "Namespace when the lease is given as NAME");
  AddConnectionFlags(command, flags.connection);
}

std::optional<LeaseTarget> OpenLeaseTarget(const std::string& command, const LeaseRefFlags& flags,
                                           int* exit_code) {
  auto api = ConnectOrReport(command, flags.connection);
  if (!api) {
    *exit_code = 1;
    return std::nullopt;
  }
  auto ref = ParseLeaseRef(flags.lease, flags.ns.empty() ? api->default_namespace() : flags.ns);
  if (!ref.ok()) {
    std::cerr << "tenure " << command << ": " << ref.status().message() << "\n";
    *exit_code = 2;
    return std::nullopt;
  }
  return LeaseTarget{std::move(*api), ref->first, ref->second};
}

sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

}  // namespace tenure::cli
