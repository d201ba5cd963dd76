// Version: the version of the library, fixed when the library is compiled.
#include "tenure/version.h"

namespace tenure {

std::string_view Version() { return TENURE_VERSION_STRING; }

}  // namespace tenure
