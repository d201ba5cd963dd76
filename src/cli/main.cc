// The `tenure` command.
#include <CLI/CLI.hpp>

#include "cli/inspect_commands.h"
#include "cli/issue_user_command.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"

int main(int argc, char** argv) {
  CLI::App app{"tenure: Kubernetes-style leader election, and a coordination server"};
  app.require_subcommand(1);
  tenure::cli::AddServeCommand(app);
  tenure::cli::AddRunCommand(app);
  tenure::cli::AddInspectCommands(app);
  tenure::cli::AddIssueUserCommand(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
