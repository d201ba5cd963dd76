// Reading one HTTP/1.1 request: the conversion from Beast's message, and a parser of a complete
// request in memory (the fuzzer's entry to the server's request reader).
#include <utility>  // before asio: Boost 1.74 coroutines under GCC 12 need std::exchange

#include "server/http_request_reader.h"

#include <algorithm>
#include <boost/asio/buffer.hpp>

#include "api/url.h"
#include "server/http_request_beast.h"

namespace tenure::server {

namespace http = boost::beast::http;

std::vector<std::string> HeaderValues(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    size_t first = value.find_first_not_of(" \t", start);
    if (first != std::string::npos && first < comma) {
      size_t last = value.find_last_not_of(" \t", comma - 1);
      out.push_back(value.substr(first, last - first + 1));
    }
    start = comma + 1;
  }
  return out;
}

std::string HttpRequest::header(const std::string& lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return std::string();
}

std::string HttpRequest::param(const std::string& name) const {
  auto range = query.equal_range(name);
  if (range.first == range.second) return "";
  return range.first->second;
}

bool HttpRequest::has_param(const std::string& name) const { return query.count(name) > 0; }

HttpRequest ToRequest(http::request<http::string_body>&& raw, bool tls) {
  HttpRequest req;
  req.method = std::string(raw.method_string());
  req.target = std::string(raw.target());
  std::string_view target = req.target;
  size_t q = target.find('?');
  req.path = api::PercentDecode(target.substr(0, q));
  if (q != std::string_view::npos) req.query = api::ParseQuery(target.substr(q + 1));
  req.headers.reserve(16);
  for (const auto& field : raw) {
    auto raw_name = field.name_string();
    std::string name(raw_name.size(), '\0');
    for (size_t i = 0; i < raw_name.size(); ++i) {
      char c = raw_name[i];
      name[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    }
    auto it = std::find_if(req.headers.begin(), req.headers.end(),
                           [&](const auto& h) { return h.first == name; });
    if (it == req.headers.end()) {
      req.headers.emplace_back(std::move(name), std::string(field.value()));
    } else {
      it->second += ',';
      it->second.append(field.value().data(), field.value().size());
    }
  }
  req.body = std::move(raw.body());
  req.tls = tls;
  return req;
}

Result<HttpRequest> ParseHttpRequest(std::string_view bytes, size_t max_body_bytes) {
  BeastRequestParser parser;
  ConfigureParser(parser, max_body_bytes);
  parser.eager(true);
  boost::beast::error_code ec;
  size_t used = 0;
  while (!parser.is_done() && used < bytes.size()) {
    size_t n = parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
    if (ec == http::error::need_more) break;
    if (ec == http::error::body_limit) {
      return Status(Reason::kRequestEntityTooLarge,
                    "Request entity too large: limit is " + std::to_string(max_body_bytes));
    }
    if (ec) return Status::BadRequest("malformed HTTP request: " + ec.message());
    if (n == 0) break;
    used += n;
  }
  if (!parser.is_done()) return Status::BadRequest("incomplete HTTP request");
  return ToRequest(parser.release(), false);
}

}  // namespace tenure::server
