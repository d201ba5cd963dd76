// Beast's side of reading a request, shared by http_server.cc and http_request_reader.cc only
// (the two files that include Boost.Beast): parser settings and the conversion to HttpRequest.
#pragma once

#include <boost/beast/http.hpp>

#include "server/http_request_reader.h"

namespace tenure::server {

using BeastRequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

inline void ConfigureParser(BeastRequestParser& parser, size_t max_body_bytes) {
  parser.header_limit(kMaxRequestHeadBytes);
  parser.body_limit(max_body_bytes);
}

// Lower-case header names (repeated fields joined with ","), the target split into a
// percent-decoded path and decoded query parameters.
HttpRequest ToRequest(boost::beast::http::request<boost::beast::http::string_body>&& raw, bool tls);

}  // namespace tenure::server
