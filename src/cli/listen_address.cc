// ParseListenAddress: the HOST:PORT, :PORT, PORT and [IPv6]:PORT forms of `--listen`.
#include "cli/listen_address.h"

namespace tenure::cli {

Status ParseListenAddress(const std::string& listen, std::string& host, uint16_t& port) {
  std::string port_text = listen;
  host = "127.0.0.1";
  size_t colon = listen.rfind(':');
  if (colon != std::string::npos) {
    std::string h = listen.substr(0, colon);
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
    if (!h.empty()) host = h;
    port_text = listen.substr(colon + 1);
  }
  int value = -1;
  try {
    size_t used = 0;
    value = std::stoi(port_text, &used);
    if (used != port_text.size()) value = -1;
  } catch (...) {
    value = -1;
  }
  if (value < 0 || value > 65535) {
    return Status::BadRequest("invalid listen address \"" + listen +
                              "\" (want HOST:PORT, :PORT or PORT)");
  }
  port = static_cast<uint16_t>(value);
  return Status::Ok();
}

}  // namespace tenure::cli
