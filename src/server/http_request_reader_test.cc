// ParseHttpRequest: the server's request reader on bytes in memory.
#include "server/http_request_reader.h"

#include <gtest/gtest.h>

namespace tenure::server {
namespace {

TEST(HttpRequestReaderTest, ParsesAsTheServerReads) {
  auto r = ParseHttpRequest(
      "PUT /api/v1/namespaces/a%20b/configmaps/c?labelSelector=x%3Dy&dryRun=All HTTP/1.1\r\n"
      "Host: h\r\nX-Twice: 1\r\nx-twice: 2\r\nContent-Length: 2\r\n\r\n{}",
      1024);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->method, "PUT");
  EXPECT_EQ(r->path, "/api/v1/namespaces/a b/configmaps/c");
  EXPECT_EQ(r->param("labelSelector"), "x=y");
  EXPECT_EQ(r->header("x-twice"), "1,2");
  EXPECT_EQ(r->body, "{}");
}

TEST(HttpRequestReaderTest, LimitsAndMalformedRequests) {
  auto large = ParseHttpRequest("POST / HTTP/1.1\r\nContent-Length: 2000\r\n\r\n", 1024);
  EXPECT_EQ(large.status().reason(), Reason::kRequestEntityTooLarge);
  EXPECT_EQ(ParseHttpRequest("GARBAGE\r\n\r\n", 1024).status().reason(), Reason::kBadRequest);
  EXPECT_EQ(ParseHttpRequest("GET / HTTP/1.1\r\nHost: h\r\n", 1024).status().reason(),
            Reason::kBadRequest);  // incomplete
  std::string huge_head =
      "GET / HTTP/1.1\r\nX: " + std::string(kMaxRequestHeadBytes, 'a') + "\r\n\r\n";
  EXPECT_EQ(ParseHttpRequest(huge_head, 1024).status().reason(), Reason::kBadRequest);
}

}  // namespace
}  // namespace tenure::server
