// The address forms `--listen` accepts (tenure serve, tenure run).
#pragma once

#include <cstdint>
#include <string>

#include "tenure/status.h"

namespace tenure::cli {

// "HOST:PORT", ":PORT" or "PORT" (host 127.0.0.1); "[::1]:PORT" for IPv6. Port 0: any free port.
Status ParseListenAddress(const std::string& listen, std::string& host, uint16_t& port);

}  // namespace tenure::cli
