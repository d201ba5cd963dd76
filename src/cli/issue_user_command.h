// `tenure issue-user NAME [--group G]...`: a client certificate for a user, signed by the data
// folder's CA (which `tenure serve` trusts), in a kubeconfig of its own.
#pragma once

namespace CLI {
class App;
}

namespace tenure::cli {

void AddIssueUserCommand(CLI::App& app);

}  // namespace tenure::cli
