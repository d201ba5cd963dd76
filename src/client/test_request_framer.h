// TakeRequest and ReadRequest: how the tests' stand-in servers (on a test_loopback_listener.h
// socket) cut the HTTP/1.1 requests they read into single requests: the request line, the head
// up to its blank line and a body of Content-Length bytes (the clients under test send no chunked
// bodies). Header-only.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <optional>
#include <string>

namespace tenure::client {

struct FramedRequest {
  std::string line;  // "GET /path?query HTTP/1.1"
  std::string body;
};

// The first request `in` holds completely, taken off its front; nullopt, `in` untouched, while
// its head or its body is still incomplete.
inline std::optional<FramedRequest> TakeRequest(std::string& in) {
  size_t head_end = in.find("\r\n\r\n");
  if (head_end == std::string::npos) return std::nullopt;
  size_t length = 0;
  if (size_t p = in.find("Content-Length: "); p != std::string::npos && p < head_end) {
    length = std::stoul(in.substr(p + 16, head_end - p - 16));
  }
  size_t body_start = head_end + 4;
  if (in.size() < body_start + length) return std::nullopt;
  FramedRequest request{in.substr(0, in.find("\r\n")), in.substr(body_start, length)};
  in.erase(0, body_start + length);
  return request;
}

// The next request on the connection `fd`: taken from what `in` holds, reading more into it as
// needed (what arrives after the request stays in `in` for the next call). nullopt once the peer
// hung up, or the read failed, before a request was complete.
inline std::optional<FramedRequest> ReadRequest(int fd, std::string& in) {
  char buf[4096];
  for (;;) {
    if (std::optional<FramedRequest> request = TakeRequest(in)) return request;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    in.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace tenure::client
