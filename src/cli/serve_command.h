// `tenure serve`: runs the coordination server until SIGINT or SIGTERM.
#pragma once

namespace CLI {
class App;
}

namespace tenure::cli {

// Adds the `serve` subcommand to `app`; its callback runs the server.
void AddServeCommand(CLI::App& app);

}  // namespace tenure::cli
