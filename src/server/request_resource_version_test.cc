// The server's answers to the resourceVersions and watch timeouts that clients send.
#include <gtest/gtest.h>

#include <string>

#include "server/test_server_fixture.h"

namespace tenure::server::testing {
namespace {

using nlohmann::json;

// Digits only, "" for none, at most 9223372036854775799; anything else is 400 with
// kube-apiserver's message.
class RequestResourceVersionTest : public ServerFixture {
 protected:
  static constexpr const char* kLeases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

  static std::string Lease(const std::string& rv) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", "l"}, {"resourceVersion", rv}}},
                  {"spec", {{"holderIdentity", "a"}}}};
    return lease.dump();
  }
  static std::string Invalid(const std::string& rv) {
    return "invalid resource version: \"" + rv + "\"";
  }
};

TEST_F(RequestResourceVersionTest, UpdatesNameDigitsOnly) {
  client::HttpConnection c(endpoint());
  int status = 0;
  for (std::string rv : {"abc", "-1", "+1", " 1", "12a", "9223372036854775800",
                         "18446744073709551615", "99999999999999999999"}) {
    json reply = Call(c, "PUT", std::string(kLeases) + "/l", Lease(rv), &status);
    EXPECT_EQ(status, 400) << rv;
    EXPECT_EQ(reply.value("message", ""), Invalid(rv));
  }
  // The largest accepted: a version the store never reached, so a conflict, not a bad request.
  for (std::string rv : {"9223372036854775799", "00000000000000000000000000001"}) {
    Call(c, "PUT", std::string(kLeases) + "/l", Lease(rv), &status);
    EXPECT_NE(status, 400) << rv;
  }
}

// kube's list validation words it in full (ValidateListOptions), as Go's ParseUint fails.
TEST_F(RequestResourceVersionTest, ListsSayWhyInFull) {
  client::HttpConnection c(endpoint());
  int status = 0;
  json reply = Call(c, "GET", std::string(kLeases) + "?resourceVersion=abc", "", &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(reply.value("message", ""),
            "invalid resource version: resourceVersion: Invalid value: \"abc\": "
            "strconv.ParseUint: parsing \"abc\": invalid syntax");
  reply =
      Call(c, "GET", std::string(kLeases) + "?resourceVersion=99999999999999999999", "", &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(reply.value("message", ""),
            "invalid resource version: resourceVersion: Invalid value: "
            "\"99999999999999999999\": strconv.ParseUint: parsing \"99999999999999999999\": "
            "value out of range");
}

TEST_F(RequestResourceVersionTest, WatchesAndDeletePreconditions) {
  client::HttpConnection c(endpoint());
  int status = 0;
  json reply = Call(c, "GET", std::string(kLeases) + "?watch=true&resourceVersion=x1", "", &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(reply.value("message", ""), Invalid("x1"));
  reply = Call(c, "GET", std::string(kLeases) + "?watch=true&timeoutSeconds=1s", "", &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(reply.value("message", ""), "strconv.ParseInt: parsing \"1s\": invalid syntax");

  Call(c, "POST", kLeases, Lease(""), &status);
  ASSERT_EQ(status, 201);
  json options = {{"apiVersion", "v1"},
                  {"kind", "DeleteOptions"},
                  {"preconditions", {{"resourceVersion", "0x10"}}}};
  reply = Call(c, "DELETE", std::string(kLeases) + "/l", options.dump(), &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(reply.value("message", ""), Invalid("0x10"));
}

}  // namespace
}  // namespace tenure::server::testing
