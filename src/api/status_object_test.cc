// Tests of the meta/v1 Status object: the exact text the server sends, and reading it back.
#include "api/status_object.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tenure::api {
namespace {

TEST(StatusObjectTest, SuccessText) {
  EXPECT_EQ(StatusToJsonText(Status::Ok()),
            R"({"apiVersion":"v1","code":200,"kind":"Status","metadata":{},"status":"Success"})");
}

TEST(StatusObjectTest, SuccessOfADeleteNamesTheObject) {
  Status success;
  success.set_details(
      {.name = "l", .group = "coordination.k8s.io", .kind = "leases", .uid = "u-1"});
  EXPECT_EQ(StatusToJsonText(success),
            R"({"apiVersion":"v1","code":200,"details":{"group":"coordination.k8s.io",)"
            R"("kind":"leases","name":"l","uid":"u-1"},"kind":"Status","metadata":{},)"
            R"("status":"Success"})");
}

TEST(StatusObjectTest, FailureWithEveryDetailsField) {
  Status failure = Status::NotFound(R"(leases.coordination.k8s.io "l" not found)");
  failure.set_details({.name = "l",
                       .group = "coordination.k8s.io",
                       .kind = "leases",
                       .uid = "u-1",
                       .retry_after_seconds = 3});
  EXPECT_EQ(StatusToJsonText(failure),
            R"({"apiVersion":"v1","code":404,"details":{"group":"coordination.k8s.io",)"
            R"("kind":"leases","name":"l","retryAfterSeconds":3,"uid":"u-1"},"kind":"Status",)"
            R"("message":"leases.coordination.k8s.io \"l\" not found","metadata":{},)"
            R"("reason":"NotFound","status":"Failure"})");
}

TEST(StatusObjectTest, FailureWithCausesOmitsTheirEmptyFields) {
  Status invalid(Reason::kInvalid, R"(Lease.coordination.k8s.io "l" is invalid)",
                 {{"FieldValueInvalid", "Invalid value: -1", "spec.leaseDurationSeconds"},
                  {"FieldValueRequired", "", "metadata.name"},
                  {"", "", ""}});
  invalid.set_details({.name = "l", .group = "coordination.k8s.io", .kind = "Lease"});
  EXPECT_EQ(StatusToJsonText(invalid),
            R"({"apiVersion":"v1","code":422,"details":{"causes":[{"field":)"
            R"("spec.leaseDurationSeconds","message":"Invalid value: -1","reason":)"
            R"("FieldValueInvalid"},{"field":"metadata.name","reason":"FieldValueRequired"},)"
            R"({}],"group":"coordination.k8s.io","kind":"Lease","name":"l"},"kind":"Status",)"
            R"("message":"Lease.coordination.k8s.io \"l\" is invalid","metadata":{},)"
            R"("reason":"Invalid","status":"Failure"})");
}

TEST(StatusObjectTest, RetryAfterAloneMakesTheDetails) {
  Status busy(Reason::kTooManyRequests, "too many requests");
  busy.set_details({.retry_after_seconds = 1});
  EXPECT_EQ(StatusToJsonText(busy),
            R"({"apiVersion":"v1","code":429,"details":{"retryAfterSeconds":1},"kind":"Status",)"
            R"("message":"too many requests","metadata":{},"reason":"TooManyRequests",)"
            R"("status":"Failure"})");
}

TEST(StatusObjectTest, NoDetailsWithoutAPositiveRetryAfterOrAnyOtherField) {
  Status failure = Status::Conflict("");
  failure.set_details({.retry_after_seconds = -2});
  EXPECT_EQ(StatusToJsonText(failure),
            R"({"apiVersion":"v1","code":409,"kind":"Status","metadata":{},"reason":"Conflict",)"
            R"("status":"Failure"})");
}

TEST(StatusObjectTest, AMessageThatIsNotUtf8IsReplaced) {
  EXPECT_EQ(
      StatusToJsonText(Status::BadRequest("bad \xff name")),
      "{\"apiVersion\":\"v1\",\"code\":400,\"kind\":\"Status\",\"message\":\"bad \xEF\xBF\xBD "
      "name\",\"metadata\":{},\"reason\":\"BadRequest\",\"status\":\"Failure\"}");
}

TEST(StatusObjectTest, ReadsBackWhatItWrites) {
  Status invalid(Reason::kInvalid, "x is invalid",
                 {{"FieldValueInvalid", "Invalid value", "spec.a"}, {"", "", "spec.b"}});
  invalid.set_details({.name = "x",
                       .group = "coordination.k8s.io",
                       .kind = "Lease",
                       .uid = "u",
                       .retry_after_seconds = 2});
  Status read = StatusFromResponse(422, StatusToJsonText(invalid));
  EXPECT_EQ(read.reason(), Reason::kInvalid);
  EXPECT_EQ(read.message(), "x is invalid");
  EXPECT_EQ(read.causes(), invalid.causes());
  EXPECT_EQ(read.details(), invalid.details());
}

TEST(StatusObjectTest, ReadingIsTolerantOfFieldsOfTheWrongType) {
  Status read = StatusFromResponse(
      404, R"({"kind":"Status","code":"x","reason":7,"message":["m"],)"
           R"("details":{"name":1,"retryAfterSeconds":"5","causes":[5,null,{"field":"f"}]}})");
  EXPECT_EQ(read.reason(), Reason::kNotFound);  // from the HTTP code
  EXPECT_EQ(read.message(), "");
  EXPECT_EQ(read.causes(), (std::vector<StatusCause>{{"", "", "f"}}));
  EXPECT_EQ(read.details(), StatusDetails{});
  EXPECT_EQ(StatusFromResponse(500, R"({"kind":"Status","details":"d","code":404})").reason(),
            Reason::kNotFound);
}

// The body's code wins, unless it is 0 ("not set" in meta/v1) or would make a failed reply a
// success: read as OK, an HTTP 500 handed callers a Result with neither error nor value.
TEST(StatusObjectTest, TheCodeOfTheBodyWinsOverTheHttpCode) {
  EXPECT_EQ(StatusFromResponse(500, R"({"kind":"Status","code":410})").reason(), Reason::kGone);
  EXPECT_EQ(StatusFromResponse(500, R"({"kind":"Status","code":0,"reason":"Nope"})").reason(),
            Reason::kInternalError);
  EXPECT_EQ(StatusFromResponse(500, R"({"kind":"Status","code":200})").reason(),
            Reason::kInternalError);
  EXPECT_EQ(StatusFromResponse(503, R"({"kind":"Status","reason":"Success"})").reason(),
            Reason::kServiceUnavailable);
  EXPECT_TRUE(StatusFromResponse(200, R"({"kind":"Status","status":"Success","code":200})").ok());
}

TEST(StatusObjectTest, ABodyThatIsNoStatusIsReadFromTheHttpCode) {
  Status html = StatusFromResponse(503, "<html>down</html>");
  EXPECT_EQ(html.reason(), Reason::kServiceUnavailable);
  EXPECT_EQ(html.message(), "the server responded with HTTP 503: <html>down</html>");
  EXPECT_EQ(StatusFromResponse(404, R"({"kind":"Lease"})").reason(), Reason::kNotFound);
}

// A "kind" that is no string made the reading throw (nlohmann's value() with a default checks the
// type); a server's odd reply must come back as a Status.
TEST(StatusObjectTest, AKindThatIsNoStringIsNoStatus) {
  Status read = StatusFromResponse(502, R"({"kind":5,"message":"m"})");
  EXPECT_EQ(read.reason(), Reason::kInternalError);
  EXPECT_EQ(read.message(), R"(the server responded with HTTP 502: {"kind":5,"message":"m"})");
}

}  // namespace
}  // namespace tenure::api
