// `tenure dashboard`: the web dashboard against the kubeconfig's API server.
#pragma once

namespace CLI {
class App;
}

namespace tenure::cli {

void AddDashboardCommand(CLI::App& app);

}  // namespace tenure::cli
