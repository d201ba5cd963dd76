// The inspection commands `tenure get`, `describe`, `watch`, `release` (each reads the
// kubeconfig like kubectl), and `tenure demo` with its hidden `demo-candidate` helper.
#pragma once

#include <signal.h>

#include <optional>
#include <string>

#include "cli/lease_api.h"

namespace CLI {
class App;
}

namespace tenure::cli {

// Registers every command of this file on `app` (one call from main.cc).
void AddInspectCommands(CLI::App& app);

void AddGetCommand(CLI::App& app);
void AddDescribeCommand(CLI::App& app);
void AddWatchCommand(CLI::App& app);
void AddReleaseCommand(CLI::App& app);
void AddDemoCommand(CLI::App& app);
void AddDemoCandidateCommand(CLI::App& app);  // hidden: the demo's candidate processes

// --kubeconfig, --context and --server (also TENURE_SERVERS) on `command`.
void AddConnectionFlags(CLI::App* command, ConnectionFlags& flags);
// Connects, printing "tenure <command>: <why>" to stderr on failure.
std::optional<LeaseApi> ConnectOrReport(const std::string& command, const ConnectionFlags& flags);

// The one lease a command is about: `[lease] NAMESPACE/NAME` (or NAME with -n), and where.
struct LeaseRefFlags {
  std::string kind;  // the word "lease" (describe, watch)
  std::string lease;
  std::string ns;
  ConnectionFlags connection;
};
// The positionals (with the kind word first when `kind_word`), -n and the connection flags.
void AddLeaseRefOptions(CLI::App* command, LeaseRefFlags& flags, bool kind_word);

struct LeaseTarget {
  LeaseApi api;
  std::string ns;
  std::string name;
};
// Connects and resolves the reference; on failure prints why and sets *exit_code (1: no
// connection, 2: a malformed reference).
std::optional<LeaseTarget> OpenLeaseTarget(const std::string& command, const LeaseRefFlags& flags,
                                           int* exit_code);

// Blocks SIGINT and SIGTERM in the calling thread (and the threads it starts later), so that
// only an explicit sigwait/sigtimedwait on the returned set receives them. Call it first.
sigset_t BlockStopSignals();

}  // namespace tenure::cli
