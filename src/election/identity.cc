// UniqueIdentity: a per-process candidate identity, the hostname plus 16 random hex digits.
#include "tenure/identity.h"

#include <unistd.h>

#include <cstdio>
#include <random>

namespace tenure {

std::string UniqueIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof host, "tenure");
  }
  std::random_device random;
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
  return std::string(host) + "_" + suffix;
}

}  // namespace tenure
