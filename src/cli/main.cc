// The `tenure` command: its subcommands, and the options every one of them takes (--version,
// -v, --log-level, --log-format), applied before the subcommand runs.
#include <CLI/CLI.hpp>

#include "cli/dashboard_command.h"
#include "cli/inspect_commands.h"
#include "cli/issue_user_command.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "tenure/log.h"
#include "tenure/version.h"

int main(int argc, char** argv) {
  CLI::App app{"tenure: Kubernetes-style leader election, and a coordination server"};
  app.require_subcommand(1);
  // The global options may also come after the subcommand: `tenure serve -v`.
  app.fallthrough();
  app.set_version_flag("--version", std::string("tenure ") + TENURE_VERSION_STRING);
  int verbosity = 0;
  std::string log_level = "info", log_format = "text";
  app.add_flag("-v,--verbose", verbosity, "More log lines: -v logs at debug level");
  app.add_option("--log-level", log_level, "Lowest level logged: debug, info, warning or error")
      ->envname("TENURE_LOG_LEVEL")
      ->check(CLI::IsMember({"debug", "info", "warning", "warn", "error"}, CLI::ignore_case));
  app.add_option("--log-format", log_format,
                 "Log lines as text (time, level, component, message, key=value) or JSON objects")
      ->envname("TENURE_LOG_FORMAT")
      ->check(CLI::IsMember({"text", "json"}));
  app.parse_complete_callback([&] {
    tenure::SetLogLevel(verbosity > 0
                            ? tenure::LogLevel::kDebug
                            : tenure::ParseLogLevel(log_level).value_or(tenure::LogLevel::kInfo));
    tenure::SetLogSink(log_format == "json" ? tenure::JsonLogSink(stderr)
                                            : tenure::TextLogSink(stderr));
  });
  tenure::cli::AddServeCommand(app);
  tenure::cli::AddRunCommand(app);
  tenure::cli::AddInspectCommands(app);
  tenure::cli::AddIssueUserCommand(app);
  tenure::cli::AddDashboardCommand(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
