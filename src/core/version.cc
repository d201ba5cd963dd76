// Version: the version of the library, fixed when the library is compiled; tenure_build_info.
#include "tenure/version.h"

namespace tenure {

std::string_view Version() { return TENURE_VERSION_STRING; }

std::string RenderBuildInfo() {
  return "# HELP tenure_build_info The tenure version this process runs; always 1.\n"
         "# TYPE tenure_build_info gauge\n"
         "tenure_build_info{version=\"" +
         std::string(Version()) + "\"} 1\n";
}

}  // namespace tenure
