// Tests of TakeRequest and ReadRequest, the request framing of the tests' stand-in servers.
#include "client/test_request_framer.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

namespace tenure::client {
namespace {

TEST(TestRequestFramerTest, TakesWholeRequestsOneAtATime) {
  std::string in =
      "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
      "GET /b?watch=true HTTP/1.1\r\nHost: x\r\n\r\n"
      "POST /c HTTP/1.1\r\nContent-Length: 4\r\n\r\nab";
  std::optional<FramedRequest> put = TakeRequest(in);
  ASSERT_TRUE(put);
  EXPECT_EQ(put->line, "PUT /a HTTP/1.1");
  EXPECT_EQ(put->body, "hello");
  std::optional<FramedRequest> get = TakeRequest(in);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->line, "GET /b?watch=true HTTP/1.1");
  EXPECT_EQ(get->body, "");
  // The body is incomplete: nothing is taken until the rest arrives.
  EXPECT_FALSE(TakeRequest(in));
  in += "cd";
  std::optional<FramedRequest> post = TakeRequest(in);
  ASSERT_TRUE(post);
  EXPECT_EQ(post->body, "abcd");
  EXPECT_EQ(in, "");
  in = "GET /d HTTP/1.1\r\nHost: x\r\n";  // the head is incomplete
  EXPECT_FALSE(TakeRequest(in));
  EXPECT_EQ(in, "GET /d HTTP/1.1\r\nHost: x\r\n");
}

TEST(TestRequestFramerTest, ReadsUntilARequestIsCompleteAndKeepsWhatFollows) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  std::string sent =
      "PUT /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nok"
      "GET /b HTTP/1.1\r\n\r\n"
      "GET /c HTTP/1.1\r\n";
  ASSERT_EQ(write(fds[1], sent.data(), sent.size()), static_cast<ssize_t>(sent.size()));
  shutdown(fds[1], SHUT_WR);
  std::string in;
  std::optional<FramedRequest> put = ReadRequest(fds[0], in);
  ASSERT_TRUE(put);
  EXPECT_EQ(put->body, "ok");
  std::optional<FramedRequest> get = ReadRequest(fds[0], in);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->line, "GET /b HTTP/1.1");
  // The peer hung up in the middle of the third.
  EXPECT_FALSE(ReadRequest(fds[0], in));
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace tenure::client
