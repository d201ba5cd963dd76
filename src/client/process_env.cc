// EnvironmentWith: this process's environment with overridden variables replaced, not repeated.
#include "client/process_env.h"

extern char** environ;

namespace tenure::client {

std::vector<std::string> EnvironmentWith(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [k, v] : overrides) overridden |= (k == name);
    if (!overridden) out.push_back(std::move(entry));
  }
  // A name given twice: the last value counts, as Go's exec.Cmd keeps the last copy.
  for (size_t i = 0; i < overrides.size(); ++i) {
    bool later = false;
    for (size_t j = i + 1; j < overrides.size(); ++j)
      later |= overrides[j].first == overrides[i].first;
    if (!later) out.push_back(overrides[i].first + "=" + overrides[i].second);
  }
  return out;
}

}  // namespace tenure::client
