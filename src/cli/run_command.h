// `tenure run [flags] -- COMMAND ARGS...`: runs COMMAND only while this process leads the lock
// (see run_supervisor.h for the behaviour and run_settings.h for the configuration).
#pragma once

namespace CLI {
class App;
}

namespace tenure::cli {

// Adds the `run` subcommand to `app`; its callback runs the supervisor and exits with its status.
void AddRunCommand(CLI::App& app);

}  // namespace tenure::cli
