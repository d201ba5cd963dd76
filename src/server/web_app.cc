// WebApp's shared helpers: path prefixes and cookies.
#include "server/web_app.h"

#include "server/response_format.h"

namespace tenure::server {

HttpResponse WebApp::Reject(const Status& status) { return ErrorResponse(status); }

bool PathUnder(const std::string& path, const std::string& prefix) {
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

std::string CookieValue(const std::string& cookie_header, const std::string& name) {
  size_t at = 0;
  while (at < cookie_header.size()) {
    size_t end = cookie_header.find(';', at);
    if (end == std::string::npos) end = cookie_header.size();
    size_t start = cookie_header.find_first_not_of(' ', at);
    if (start < end) {
      size_t eq = cookie_header.find('=', start);
      if (eq < end && cookie_header.compare(start, eq - start, name) == 0 &&
          eq - start == name.size()) {
        size_t value_end = cookie_header.find_last_not_of(' ', end - 1);
        return cookie_header.substr(eq + 1, value_end + 1 - (eq + 1));
      }
    }
    at = end + 1;
  }
  return "";
}

}  // namespace tenure::server
