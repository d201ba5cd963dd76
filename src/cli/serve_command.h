// `tenure serve`: runs the coordination server until SIGINT or SIGTERM.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace tenure::cli {

// Adds the `serve` subcommand to `app`; its callback runs the server.
void AddServeCommand(CLI::App& app);

// The data folder when --data-dir is not given: $XDG_DATA_HOME/tenure, ~/.local/share/tenure,
// or ./tenure-data.
std::string DefaultDataDir();

}  // namespace tenure::cli
